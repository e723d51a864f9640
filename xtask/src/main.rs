//! `kraftwerk-import`: turns a pinned commit of BuildCores OpenDB (ODC-By 1.0,
//! <https://github.com/buildcores/buildcores-open-db>) into Kraftwerk catalog files.
//!
//! ```text
//! cargo run --release --manifest-path xtask/Cargo.toml -- \
//!     --git-dir /path/to/buildcores-open-db/.git --commit <40-hex commit> [--out catalog/opendb]
//! ```
//!
//! Reads `open-db/{CPU,PCCase,CPUCooler,PSU,Motherboard,GPU,RAM}/*.json` at that commit through `git`
//! (no work tree needed), maps each file to Kraftwerk's part schema and writes one compact JSON
//! file per kind: `{"import": {...commit...}, "skipped": [...], "parts": {"<kind>": [...]}}`.
//! The same commit in gives byte-identical files out (files sorted by path, ids deterministic,
//! no timestamps).
//!
//! Rules: a figure OpenDB does not give is left out (`None` in Kraftwerk), never 0. A file that
//! is not valid JSON or violates the schema (a figure of the wrong type, a required field
//! missing) is skipped and listed in `skipped` with its path and reason: no half-filled part.
//! A file named in [`NOT_IMPORTED`] (a second record of a product, with figures that product
//! cannot have) is listed in `skipped` the same way, with its reason.
//! Parts outside the scope of an LLM machine are counted per reason in `import.out_of_scope`.
//! A curated part in `catalog/*.ron` whose notes cite an OpenDB file takes that file's part's
//! id, so the curated figures override the imported ones figure by figure at load.
//!
//! `kraftwerk-import prices --git-dir ... --commit ...` imports dated street prices instead
//! (docyx/pc-part-dataset, MIT): see [`prices`].

mod kinds;
mod prices;

use kinds::{board, case, cooler, cpu, gpu_card, memory_kit, psu};

use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};

const DB: &str = "BuildCores OpenDB";
const REPO: &str = "https://github.com/buildcores/buildcores-open-db";

/// AMD's statement on PCIe 4.0 for AM4 boards from before the 500 series, as quoted by PCGamesN.
const AMD_PRE_X570: &str = "AMD: 'PCIe 4.0 will not be an option ultimately available to pre-X570 motherboards' (https://www.pcgamesn.com/amd/pcie-4-0-x470-b450-support-bios-beta)";

/// OpenDB files the import leaves out by name, with the reason: a second record of a product
/// another file already lists (both give the same part number) whose figures contradict that
/// product. Each is written to `skipped` with its reason, so `catalog audit` names it; the
/// other file stays the one part.
const NOT_IMPORTED: [(&str, &str); 4] = [
    (
        "open-db/Motherboard/a8868ad9-23e8-4a3b-b0af-20ba9a5f6e74.json",
        "duplicate of open-db/Motherboard/b0dba118-caa7-4a04-b622-c0433fb81586.json (ROG STRIX B450-F GAMING; both give part number 90MB0YS0-M0EAY0), which is imported; this record lists three PCIe 4.0 x16 slots and four M.2 sockets, which a B450 board does not have (AMD: 'PCIe 4.0 will not be an option ultimately available to pre-X570 motherboards', https://www.pcgamesn.com/amd/pcie-4-0-x470-b450-support-bios-beta; e-catalog lists PCI Express 3.0 and two M.2 for this board, https://e-catalog.com/cmp/61047/tuf-b450-pro-gaming-vs-rog-strix-b450-f-gaming)",
    ),
    (
        "open-db/Motherboard/c29641ca-42b7-4085-94dd-972344276817.json",
        "duplicate of open-db/Motherboard/b3905c0f-8b1b-4e4e-8e76-e7a091523654.json (MSI B450 TOMAHAWK MAX; both give part number 'B450 TOMAHAWK MAX'), which is imported; this record lists PCIe 4.0 slots and two PCIe 4.0 M.2 sockets, which a B450 board does not have (AMD: 'PCIe 4.0 will not be an option ultimately available to pre-X570 motherboards', https://www.pcgamesn.com/amd/pcie-4-0-x470-b450-support-bios-beta; e-catalog lists PCI Express 3.0 and one M.2 for this board, https://e-catalog.com/cmp/61147/b450-tomahawk-max-vs-rog-strix-b450-f-gaming)",
    ),
    (
        "open-db/Motherboard/1c6f589b-3387-444c-b70e-e7b736e431de.json",
        "duplicate of open-db/Motherboard/8d1566c7-8f5e-4afc-a452-eb70d9e9cd00.json (Gigabyte B550 VISION D; both give part number 'B550 VISION D'), which is imported; this record lists three PCIe 4.0 x16 slots and five PCIe 4.0 M.2 sockets, which a B550 board cannot have: the B550 chipset has no PCIe 4.0 lanes, only PCIe 3.0 (OC3D, https://overclock3d.net/reviews/cpu_mainboard/gigabyte-b550-aorus-pro-review/4/: 'there are no PCI Express 4.0 lanes available on the chipset ... the chipset only has PCIe 3.0 lanes to offer'), so only the CPU's lanes run PCIe 4.0; the imported record's x16 + x8 PCIe 4.0 (CPU) and x4 PCIe 3.0 slots and its one PCIe 4.0 and one PCIe 3.0 M.2 fit that",
    ),
    (
        "open-db/Motherboard/8b3e0d87-243b-43c1-9f19-88a614fe6225.json",
        "duplicate of open-db/Motherboard/5514d080-3f69-45f0-8e47-ea116f53d555.json (MSI MEG X570 GODLIKE; both give part number 'X570GODLIKE'), which is imported; this record lists 0 PCIe slots (quantity 0 for both its slot lines, no generation) and M.2 sockets without an interface: it says nothing the other record does not, and its 0 slots would read as a board without slots",
    ),
];

/// AM4 chipsets from before the 500 series, whose boards never run PCIe 4.0 ([`AMD_PRE_X570`]).
const AM4_BEFORE_PCIE4: [&str; 5] = ["A320", "B350", "X370", "B450", "X470"];

/// OpenDB's slot generation for a board on `chipset` (`A320`, `B450`, ...), or `None` (unknown)
/// where it is one the board cannot run: OpenDB gives PCIe 4.0 for most A320/B350/X370/B450/X470
/// boards. The figure is not lowered to 3.0 (those boards' chipset slots are PCIe 2.0; which
/// slot is which the summary does not say), it is unknown.
fn slot_gen(socket: &str, chipset: &str, listed: Option<u8>) -> Option<u8> {
    listed.filter(|g| *g <= 3 || !(AM4_BEFORE_PCIE4.contains(&chipset) || GEN3_SOCKETS.contains(&socket)))
}

/// Sockets whose CPUs and chipsets have PCIe 3.0 lanes at most, so a board on them never runs a
/// slot at PCIe 4.0 (OpenDB gives 4.0 for many of them): LGA1151 (Skylake to Coffee Lake, Intel
/// 100-300 series chipsets), LGA2011-3 (Haswell-E/Broadwell-E, X99), LGA2066 (Skylake-X to
/// Cascade Lake-X, X299) and TR4 (Threadripper 1000/2000, X399). [`GEN3_PLATFORMS`] gives the
/// sources.
const GEN3_SOCKETS: [&str; 4] = ["LGA1151", "LGA2011-3", "LGA2066", "TR4"];

/// Where [`GEN3_SOCKETS`] comes from.
const GEN3_PLATFORMS: &str = "PCIe 3.0 is the newest generation on these platforms: Coffee Lake CPUs give 16 Gen3 lanes and the Z370 chipset 24 Gen3 lanes (LGA1151; hardwareluxx, https://hardwareluxx.de/index.php/artikel/hardware/mainboards/45358-asus-rog-maximus-x-formula-im-test-maximale-ausstattung-mit-oled-display.html?start=1); Intel ARK gives 40 PCIe 3.0 lanes for the Core i7-6900K (LGA2011-3) and 48 for the Core i9-10980XE (LGA2066), rows of https://github.com/felixsteinke/cpu-spec-dataset/blob/4c08d8873c33a2d1054a40ae305eec22073463a7/dataset/intel-cpus.csv; every Threadripper on TR4 has 64 PCIe 3.0 lanes (AMD at Computex 2017, https://www.pcper.com/news/Processors/Computex-2017-AMD-Threadripper-will-include-64-lanes-PCI-Express-30)";

/// Outcome of mapping one OpenDB file.
enum Outcome {
    /// A complete part (JSON in Kraftwerk's schema) and the OpenDB uuid.
    Part(Map<String, Value>),
    /// Valid, but not something an LLM machine uses; the reason is counted.
    OutOfScope(String),
}

type Mapped = Result<Outcome, String>;

struct Ctx {
    commit: String,
    /// OpenDB uuid -> curated id, from the curated files' notes.
    links: HashMap<String, String>,
}

fn main() {
    if let Err(e) = run() {
        eprintln!("kraftwerk-import: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "prices") {
        return prices::run(&args[1..]);
    }
    let arg = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let git_dir = arg("--git-dir").ok_or("--git-dir DIR is required")?;
    let commit = arg("--commit").ok_or("--commit SHA is required (pin the OpenDB commit)")?;
    if commit.len() != 40 || !commit.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!("--commit must be a full 40-hex commit id, got `{commit}`"));
    }
    let out = arg("--out").unwrap_or_else(|| "catalog/opendb".into());
    let ctx = Ctx { commit: commit.clone(), links: curated_links()? };
    let mut reader = BlobReader::new(&git_dir)?;
    let kinds: [(&str, &str, &str, fn(&Value, &Ctx) -> Mapped); 7] = [
        ("CPU", "cpus", "cpus.json", cpu),
        ("PCCase", "cases", "cases.json", case),
        ("CPUCooler", "coolers", "coolers.json", cooler),
        ("PSU", "psus", "psus.json", psu),
        ("Motherboard", "motherboards", "motherboards.json", board),
        ("GPU", "gpu_cards", "gpu_cards.json", gpu_card),
        ("RAM", "memory", "memory.json", memory_kit),
    ];
    std::fs::create_dir_all(&out).map_err(|e| format!("{out}: {e}"))?;
    for (category, key, file, map) in kinds {
        let paths = list(&git_dir, &commit, category)?;
        let mut parts = Vec::new();
        let mut skipped = Vec::new();
        let mut scope: BTreeMap<String, usize> = BTreeMap::new();
        for path in &paths {
            if let Some((_, why)) = NOT_IMPORTED.iter().find(|(p, _)| *p == path.as_str()) {
                skipped.push(json!({"path": path, "reason": why}));
                continue;
            }
            let text = reader.read(&commit, path)?;
            let mapped = serde_json::from_slice::<Value>(&text)
                .map_err(|e| format!("not valid JSON: {e}"))
                .and_then(|v| if v.is_object() { Ok(v) } else { Err("top level is not an object".into()) })
                .and_then(|v| map(&v, &ctx));
            match mapped {
                Ok(Outcome::Part(p)) => parts.push(p),
                Ok(Outcome::OutOfScope(why)) => *scope.entry(why).or_default() += 1,
                Err(reason) => skipped.push(json!({"path": path, "reason": reason})),
            }
        }
        assign_ids(&mut parts);
        let doc = json!({
            "import": {
                "provenance": {"default": {"Community": DB}, "figures": file_provenance(category)},
                "database": DB,
                "repository": REPO,
                "commit": commit,
                "licence": "ODC-By 1.0 (https://opendatacommons.org/licenses/by/1-0/)",
                "category": category,
                "files_read": paths.len(),
                "imported": parts.len(),
                "out_of_scope": scope,
            },
            "skipped": skipped,
            "parts": { key: parts },
        });
        let mut text = serde_json::to_string(&doc).map_err(|e| e.to_string())?;
        text.push('\n');
        let dest = format!("{out}/{file}");
        kraftwerk::catalog::files::write_atomic(std::path::Path::new(&dest), text.as_bytes())
            .map_err(|e| format!("{dest}: {e}"))?;
        eprintln!("{dest}: {} parts, {} skipped, {} out of scope", parts.len(), skipped.len(), scope.values().sum::<usize>());
    }
    Ok(())
}

// ------------------------------------------------------------------ git access

fn list(git_dir: &str, commit: &str, category: &str) -> Result<Vec<String>, String> {
    let o = Command::new("git")
        .args(["--git-dir", git_dir, "ls-tree", "-r", "--name-only", commit, &format!("open-db/{category}/")])
        .output()
        .map_err(|e| format!("git: {e}"))?;
    if !o.status.success() {
        return Err(format!("git ls-tree: {}", String::from_utf8_lossy(&o.stderr)));
    }
    let mut v: Vec<String> =
        String::from_utf8_lossy(&o.stdout).lines().filter(|l| l.ends_with(".json")).map(str::to_owned).collect();
    v.sort();
    Ok(v)
}

/// One `git cat-file --batch` process for every blob.
struct BlobReader {
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
    _child: std::process::Child,
}

impl BlobReader {
    fn new(git_dir: &str) -> Result<Self, String> {
        let mut child = Command::new("git")
            .args(["--git-dir", git_dir, "cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("git cat-file: {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        Ok(BlobReader { stdin, stdout, _child: child })
    }

    fn read(&mut self, commit: &str, path: &str) -> Result<Vec<u8>, String> {
        writeln!(self.stdin, "{commit}:{path}").map_err(|e| e.to_string())?;
        self.stdin.flush().map_err(|e| e.to_string())?;
        let mut header = String::new();
        self.stdout.read_line(&mut header).map_err(|e| e.to_string())?;
        let size: usize = header
            .split_whitespace()
            .nth(2)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("{path}: git says `{}`", header.trim()))?;
        let mut buf = vec![0; size + 1];
        self.stdout.read_exact(&mut buf).map_err(|e| e.to_string())?;
        buf.pop();
        Ok(buf)
    }
}

/// Curated parts whose notes cite exactly one OpenDB file: uuid -> curated id.
fn curated_links() -> Result<HashMap<String, String>, String> {
    let mut links = HashMap::new();
    for file in [
        "catalog/cases.ron",
        "catalog/coolers.ron",
        "catalog/psus.ron",
        "catalog/motherboards.ron",
        "catalog/cpus.ron",
        "catalog/memory.ron",
    ] {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e} (run from the repository root)"))?;
        for block in text.split("id: \"").skip(1) {
            let Some(end) = block.find('"') else { continue };
            let id = &block[..end];
            let rest = block.split("\n        ),").next().unwrap_or(block);
            let uuids: Vec<&str> = rest
                .match_indices("open-db/")
                .filter_map(|(i, _)| {
                    let tail = &rest[i + 8..];
                    let slash = tail.find('/')?;
                    let uuid = tail[slash + 1..].split(".json").next()?;
                    (uuid.len() == 36).then_some(uuid)
                })
                .collect();
            if let [one] = uuids.as_slice() {
                links.insert((*one).to_owned(), id.to_owned());
            }
        }
    }
    Ok(links)
}

// ------------------------------------------------------------------ field helpers

fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_owned()
}

/// Ids from vendor + name; duplicates get the OpenDB uuid's first 8 characters.
fn assign_ids(parts: &mut [Map<String, Value>]) {
    let mut count: HashMap<String, usize> = HashMap::new();
    for p in parts.iter() {
        *count.entry(p["id"].as_str().unwrap_or_default().to_owned()).or_default() += 1;
    }
    for p in parts.iter_mut() {
        let id = p["id"].as_str().unwrap_or_default().to_owned();
        let linked = p.get("_linked").and_then(Value::as_bool).unwrap_or(false);
        if count[&id] > 1 && !linked {
            let uuid = p["_uuid"].as_str().unwrap_or_default();
            p.insert("id".into(), Value::String(format!("{id}-{}", &uuid[..8])));
        }
        p.remove("_linked");
        p.remove("_uuid");
    }
    parts.sort_by(|a, b| a["id"].as_str().cmp(&b["id"].as_str()));
}

/// A positive number at `key`; `None` when absent, null or not positive (OpenDB writes 0 for
/// some unknown figures); an error when present with the wrong type.
fn num(v: &Value, key: &str) -> Result<Option<f64>, String> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => Ok(n.as_f64().filter(|x| *x > 0.0 && x.is_finite())),
        Some(other) => Err(format!("`{key}` is not a number: {other}")),
    }
}

/// A count (0 allowed, a real zero) at `key`; `None` when absent or null.
fn count(v: &Value, key: &str) -> Result<Option<u64>, String> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n.as_u64().filter(|x| *x < 64).map(Some).ok_or_else(|| format!("`{key}` = {n} is not a count")),
        Some(other) => Err(format!("`{key}` is not a count: {other}")),
    }
}

fn string<'a>(v: &'a Value, key: &str) -> Result<Option<&'a str>, String> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.trim()).filter(|s| !s.is_empty())),
        Some(other) => Err(format!("`{key}` is not a string: {other}")),
    }
}

fn strings(v: &Value, key: &str) -> Result<Vec<String>, String> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| x.as_str().map(|s| s.trim().to_owned()).ok_or_else(|| format!("`{key}` holds a non-string")))
            .collect(),
        Some(other) => Err(format!("`{key}` is not a list: {other}")),
    }
}

/// The common fields: id, vendor, name, source, notes; the uuid for ids.
fn base(v: &Value, ctx: &Ctx, category: &str) -> Result<Map<String, Value>, String> {
    let uuid = string(v, "opendb_id")?.ok_or("`opendb_id` missing")?;
    let meta = v.get("metadata").ok_or("`metadata` missing")?;
    let vendor = string(meta, "manufacturer")?.ok_or("`metadata.manufacturer` missing")?;
    let full = string(meta, "name")?.ok_or("`metadata.name` missing")?;
    let name = if full.len() > vendor.len() && full[..vendor.len()].eq_ignore_ascii_case(vendor) {
        full[vendor.len()..].trim()
    } else {
        full
    };
    let name = if name.is_empty() { full } else { name };
    let file_url = format!("{REPO}/blob/{}/open-db/{category}/{uuid}.json", &ctx.commit[..12]);
    let info = v.get("general_product_information");
    let vendor_url = info.map(|i| string(i, "manufacturer_url")).transpose()?.flatten();
    let source = vendor_url.filter(|u| u.starts_with("http")).unwrap_or(&file_url);
    let (id, linked) = match ctx.links.get(uuid) {
        Some(curated) => (curated.clone(), true),
        // The catalog's CPU ids drop "Ryzen" before "Threadripper" (`amd-threadripper-7960x`).
        None => (slug(&format!("{vendor} {name}")).replace("amd-ryzen-threadripper", "amd-threadripper"), false),
    };
    let mut m = Map::new();
    m.insert("id".into(), json!(id));
    m.insert("vendor".into(), json!(vendor));
    m.insert("name".into(), json!(name));
    m.insert("source".into(), json!(source));
    // The source URL is the vendor's page where OpenDB has one; the notes name the OpenDB file.
    m.insert("notes".into(), json!(format!("OpenDB {uuid}")));
    m.insert("_uuid".into(), json!(uuid));
    m.insert("_linked".into(), json!(linked));
    Ok(m)
}

/// Figures of a category that are derived rather than read from OpenDB, with what from.
fn file_provenance(category: &str) -> Map<String, Value> {
    let derived: &[(&str, &str)] = match category {
        "PCCase" => &[
            ("psu_bays", "one PSU bay assumed: OpenDB lists PSU form factors, not bays"),
            ("airflow", "from OpenDB's form factor (test bench = open frame, else desktop)"),
        ],
        "PSU" => &[
            ("inlet", "C14 up to 1600 W, C20 above (a C14 carries 15 A at 115 V)"),
            ("atx_version", "not in OpenDB"),
        ],
        "Motherboard" => &[
            ("memory_channels", "from the socket's platform specification, at most one per DIMM slot"),
            ("memory_type", "DDR generation from OpenDB; RDIMM for server/workstation sockets"),
        ],
        "GPU" => &[("cooler", "from OpenDB's cooling field (fans = open air)")],
        "RAM" => &[
            ("memory_type", "OpenDB's ram_type (DDR4/DDR5) and registered field (Unbuffered = UDIMM; Registered or Load Reduced = RDIMM)"),
            ("speed_mt_s", "OpenDB's speed, the data rate of the DDR4-/DDR5- rating (its schema says MHz)"),
        ],
        "CPU" => &[
            ("pcie_lanes", "the platform's usable CPU lanes (vendor platform specification; see notes)"),
            ("memory_types", "the platform's memory type"),
            ("memory_channels", "the platform's channel count"),
        ],
        _ => &[],
    };
    derived.iter().map(|(k, v)| ((*k).to_owned(), json!({ "Derived": v }))).collect()
}

fn put(m: &mut Map<String, Value>, key: &str, v: Option<Value>) {
    if let Some(v) = v {
        m.insert(key.into(), v);
    }
}

// ------------------------------------------------------------------ mappings

fn form_factor(s: &str) -> Option<&'static str> {
    Some(match s {
        "ATX" => "Atx",
        "Micro ATX" | "microATX" => "MicroAtx",
        "Mini-ITX" | "Mini ITX" => "MiniItx",
        "EATX" | "E-ATX" => "EAtx",
        "SSI CEB" => "Ceb",
        "SSI EEB" => "Eeb",
        _ => return None,
    })
}

/// OpenDB socket names to the catalog's (`LGA 1700` -> `LGA1700`).
fn socket(s: &str) -> Option<String> {
    let s = s.trim();
    Some(match s {
        "sTR4" | "TR4" => "TR4".into(),
        "LGA 1151v2" => "LGA1151".into(),
        "LGA 2011-3 Narrow" => "LGA2011-3".into(),
        "LGA 115" => return None,
        _ if s.starts_with("LGA ") => s.replace(' ', ""),
        _ => s.to_owned(),
    })
}

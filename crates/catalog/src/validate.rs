//! Catalog validation: unique ids, no dangling references, units in range, every part sourced.

use super::{Attention, Catalog, MemoryType, Part, PartKind};

/// One problem found in the catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationIssue {
    /// Kind of the part concerned.
    pub kind: PartKind,
    /// Its id.
    pub id: String,
    /// Where it came from.
    pub origin: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for ValidationIssue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} `{}` ({}): {}", self.kind.plural(), self.id, self.origin, self.message)
    }
}

fn is_slug(id: &str) -> bool {
    !id.is_empty()
        && id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.')
        && !id.starts_with('-')
        && !id.ends_with('-')
}

fn common(kind: PartKind, parts: &[&dyn Part], out: &mut Vec<ValidationIssue>) {
    let mut seen = std::collections::BTreeSet::new();
    for p in parts {
        let mut push = |m: String| {
            out.push(ValidationIssue { kind, id: p.id().to_owned(), origin: p.origin().to_string(), message: m });
        };
        if !seen.insert(p.id()) {
            push("duplicate id".into());
        }
        if !is_slug(p.id()) {
            push("id must be a kebab-case slug (a-z, 0-9, '-', '.')".into());
        }
        if !(p.source().starts_with("https://") || p.source().starts_with("http://")) {
            push(format!("source must be a URL, got `{}`", p.source()));
        }
    }
}

fn range(out: &mut Vec<ValidationIssue>, kind: PartKind, id: &str, what: &str, v: f64, lo: f64, hi: f64) {
    if !(lo..=hi).contains(&v) || !v.is_finite() {
        out.push(ValidationIssue {
            kind,
            id: id.to_owned(),
            origin: String::new(),
            message: format!("{what} = {v} is outside {lo}..={hi}"),
        });
    }
}

/// Checks the whole catalog; an empty result means it is valid.
///
/// Ranges are sanity bounds, not specs: e.g. GPU board power 10..=1500 W, memory 1..=1024 GiB,
/// PSU rating 200..=4000 W, efficiency 50..=100 %, PCIe generation 1..=6.
pub fn validate(c: &Catalog) -> Vec<ValidationIssue> {
    let mut out = Vec::new();
    for kind in PartKind::ALL {
        common(kind, &c.parts_of(kind), &mut out);
    }
    validate_cards(c, &mut out);
    validate_gpus(c, &mut out);
    validate_cpus(c, &mut out);
    validate_boards(c, &mut out);
    validate_psus_and_models(c, &mut out);
    validate_memory(c, &mut out);
    validate_cooler_verdicts(c, &mut out);
    out
}

/// Coolers: every published per-CPU verdict names a catalog CPU (a verdict for a CPU the
/// catalog lacks could never be read by the `cooler-tdp` rule) and gives its source.
fn validate_cooler_verdicts(c: &Catalog, out: &mut Vec<ValidationIssue>) {
    for cool in &c.coolers {
        for v in &cool.cpu_verdicts {
            let problem = if c.cpu(&v.cpu).is_none() {
                Some(format!("cpu_verdicts: CPU `{}` is not in cpus", v.cpu))
            } else if v.source.trim().is_empty() {
                Some(format!("cpu_verdicts: the verdict for `{}` names no source", v.cpu))
            } else {
                None
            };
            if let Some(message) = problem {
                out.push(ValidationIssue {
                    kind: PartKind::Cooler,
                    id: cool.id.clone(),
                    origin: cool.origin.to_string(),
                    message,
                });
            }
        }
    }
}

/// Memory kits: modules per kit, module size, data rate, CAS latency and voltage in range.
fn validate_memory(c: &Catalog, out: &mut Vec<ValidationIssue>) {
    let k = PartKind::Memory;
    for m in &c.memory {
        range(out, k, &m.id, "modules", f64::from(m.modules), 1.0, 16.0);
        range(out, k, &m.id, "module_gb", f64::from(m.module_gb), 1.0, 512.0);
        range(out, k, &m.id, "speed_mt_s", f64::from(m.speed_mt_s), 1600.0, 12_000.0);
        if let Some(cl) = m.cas_latency_cycles {
            range(out, k, &m.id, "cas_latency_cycles", f64::from(cl), 9.0, 80.0);
        }
        if let Some(v) = m.voltage_v {
            range(out, k, &m.id, "voltage_v", v, 1.0, 1.65);
        }
    }
}

/// GPU cards: the chip they name exists, sane length, width and board power; no card id shared with a chip.
fn validate_cards(c: &Catalog, out: &mut Vec<ValidationIssue>) {
    for card in &c.gpu_cards {
        let k = PartKind::GpuCard;
        if c.gpu(&card.chip).is_none() {
            out.push(ValidationIssue {
                kind: k,
                id: card.id.clone(),
                origin: card.origin.to_string(),
                message: format!("chip `{}` is not in gpus", card.chip),
            });
        }
        if let Some(l) = card.length_mm {
            range(out, k, &card.id, "length_mm", l, 50.0, 400.0);
        }
        if let Some(w) = card.width_slots {
            range(out, k, &card.id, "width_slots", f64::from(w), 1.0, 5.0);
        }
        if let Some(w) = card.board_power_w {
            range(out, k, &card.id, "board_power_w", w, 10.0, 1500.0);
        }
    }
    for g in &c.card_gpus {
        if c.gpu(&g.id).is_some() {
            out.push(ValidationIssue {
                kind: PartKind::GpuCard,
                id: g.id.clone(),
                origin: g.origin.to_string(),
                message: "a card and a chip share this id".into(),
            });
        }
    }
}

/// GPU chips: board power, memory, bandwidth, PCIe, length, power limits, width, peaks.
fn validate_gpus(c: &Catalog, out: &mut Vec<ValidationIssue>) {
    for g in &c.gpus {
        let k = PartKind::Gpu;
        range(out, k, &g.id, "board_power_w", g.board_power_w, 10.0, 1500.0);
        range(out, k, &g.id, "memory_gib", g.memory_gib, 1.0, 1024.0);
        range(out, k, &g.id, "memory_bandwidth_gb_s", g.memory_bandwidth_gb_s, 10.0, 20_000.0);
        range(out, k, &g.id, "pcie_gen", f64::from(g.pcie_gen), 1.0, 6.0);
        range(out, k, &g.id, "pcie_lanes", f64::from(g.pcie_lanes), 1.0, 16.0);
        if let Some(l) = g.length_mm {
            range(out, k, &g.id, "length_mm", l, 50.0, 400.0);
        }
        if let Some(min) = g.min_power_limit_w {
            range(out, k, &g.id, "min_power_limit_w", min, 10.0, g.max_limit_w());
        }
        if g.form_factor == super::GpuFormFactor::Pcie {
            range(out, k, &g.id, "width_slots", f64::from(g.width_slots), 1.0, 5.0);
        }
        for (what, v) in [
            ("peak.fp32", g.peak.fp32),
            ("peak.tf32", g.peak.tf32),
            ("peak.fp16", g.peak.fp16),
            ("peak.bf16", g.peak.bf16),
            ("peak.fp8", g.peak.fp8),
        ] {
            if let Some(v) = v {
                range(out, k, &g.id, what, v, 1.0, 5000.0);
            }
        }
    }
}

/// CPUs: TDP, memory channels, at least one memory type; each rated memory speed for a DDR
/// generation the CPU takes, within the memory kits' range, and no faster at two DIMMs per
/// channel than at one.
fn validate_cpus(c: &Catalog, out: &mut Vec<ValidationIssue>) {
    for cpu in &c.cpus {
        range(out, PartKind::Cpu, &cpu.id, "tdp_w", cpu.tdp_w, 15.0, 600.0);
        range(out, PartKind::Cpu, &cpu.id, "memory_channels", f64::from(cpu.memory_channels), 1.0, 16.0);
        if let Some(n) = cpu.max_sockets {
            range(out, PartKind::Cpu, &cpu.id, "max_sockets", f64::from(n), 1.0, 8.0);
        }
        for s in &cpu.memory_speeds {
            range(out, PartKind::Cpu, &cpu.id, "memory_speeds.rated_mt_s", f64::from(s.rated_mt_s), 1600.0, 12_000.0);
            let takes = cpu.memory_types.iter().any(|m| match m {
                MemoryType::Ddr4Udimm | MemoryType::Ddr4Rdimm => s.ddr_gen == 4,
                MemoryType::Ddr5Udimm | MemoryType::Ddr5Rdimm => s.ddr_gen == 5,
            });
            let slower = s.two_dimms_per_channel_mt_s.is_none_or(|two| two <= s.rated_mt_s);
            if !takes || !slower {
                out.push(ValidationIssue {
                    kind: PartKind::Cpu,
                    id: cpu.id.clone(),
                    origin: cpu.origin.to_string(),
                    message: if takes {
                        format!("memory_speeds: DDR{} rated faster at two DIMMs per channel than at one", s.ddr_gen)
                    } else {
                        format!("memory_speeds: a DDR{} rating, but memory_types takes no DDR{}", s.ddr_gen, s.ddr_gen)
                    },
                });
            }
        }
        if cpu.memory_types.is_empty() {
            out.push(ValidationIssue {
                kind: PartKind::Cpu,
                id: cpu.id.clone(),
                origin: cpu.origin.to_string(),
                message: "memory_types is empty".into(),
            });
        }
    }
}

/// Motherboards: unique slot names and positions, lanes, generation, sharing rules that name a slot of the board.
fn validate_boards(c: &Catalog, out: &mut Vec<ValidationIssue>) {
    for b in &c.motherboards {
        let mut names = std::collections::BTreeSet::new();
        let mut positions = std::collections::BTreeSet::new();
        for s in &b.pcie_slots {
            let mut push = |m: String| {
                out.push(ValidationIssue {
                    kind: PartKind::Motherboard,
                    id: b.id.clone(),
                    origin: b.origin.to_string(),
                    message: m,
                });
            };
            if !names.insert(s.name.as_str()) {
                push(format!("duplicate slot name {}", s.name));
            }
            if let Some(p) = s.position
                && !positions.insert(p)
            {
                push(format!("two slots at position {p}"));
            }
            if s.electrical_lanes > s.physical_lanes {
                push(format!(
                    "slot {}: x{} electrical in an x{} connector",
                    s.name, s.electrical_lanes, s.physical_lanes
                ));
            }
            if !(1..=6).contains(&s.pcie_gen) {
                push(format!("slot {}: PCIe gen {}", s.name, s.pcie_gen));
            }
        }
        for m in &b.m2_slots {
            if !names.insert(m.name.as_str()) {
                out.push(ValidationIssue {
                    kind: PartKind::Motherboard,
                    id: b.id.clone(),
                    origin: b.origin.to_string(),
                    message: format!("duplicate slot name {}", m.name),
                });
            }
        }
        // Dangling references: every sharing rule names a slot or M.2 socket of this board.
        let shares = b
            .pcie_slots
            .iter()
            .flat_map(|s| s.shares.iter().map(move |r| (&s.name, r)))
            .chain(b.m2_slots.iter().flat_map(|m| m.shares.iter().map(move |r| (&m.name, r))));
        for (owner, rule) in shares {
            if !names.contains(rule.when_used.as_str()) {
                out.push(ValidationIssue {
                    kind: PartKind::Motherboard,
                    id: b.id.clone(),
                    origin: b.origin.to_string(),
                    message: format!("{owner}: sharing rule names unknown slot `{}`", rule.when_used),
                });
            }
        }
    }
}

/// PSUs (rating, efficiency points) and LLM models (parameters, heads).
fn validate_psus_and_models(c: &Catalog, out: &mut Vec<ValidationIssue>) {
    for p in &c.psus {
        range(out, PartKind::Psu, &p.id, "rated_w", p.rated_w, 200.0, 4000.0);
        if let Some(w) = p.connectors.hpwr_class_w.filter(|w| ![150, 300, 450, 600].contains(w)) {
            out.push(ValidationIssue {
                kind: PartKind::Psu,
                id: p.id.clone(),
                origin: p.origin.to_string(),
                message: format!("connectors.hpwr_class_w = {w}: a 12V-2x6 cable signals 150, 300, 450 or 600 W"),
            });
        }
        for e in &p.efficiency {
            range(out, PartKind::Psu, &p.id, "efficiency_pct", e.efficiency_pct, 50.0, 100.0);
            range(out, PartKind::Psu, &p.id, "load_pct", e.load_pct, 1.0, 100.0);
        }
    }
    for m in &c.models {
        range(out, PartKind::Model, &m.id, "params_b", m.params_b, 0.01, 10_000.0);
        if let Some(a) = m.active_params_b {
            range(out, PartKind::Model, &m.id, "active_params_b", a, 0.01, m.params_b);
        }
        if m.kv_heads == 0 || m.heads % m.kv_heads != 0 {
            out.push(ValidationIssue {
                kind: PartKind::Model,
                id: m.id.clone(),
                origin: m.origin.to_string(),
                message: format!("kv_heads {} must divide heads {}", m.kv_heads, m.heads),
            });
        }
        let mut bad = |message: String| {
            out.push(ValidationIssue {
                kind: PartKind::Model,
                id: m.id.clone(),
                origin: m.origin.to_string(),
                message,
            });
        };
        if let Some(e) = &m.experts
            && (e.per_token == 0
                || e.per_token > e.routed
                || e.layers == 0
                || e.layers > m.layers
                || e.intermediate == 0)
        {
            bad(format!(
                "experts: per_token {} must be 1..={} routed, layers {} must be 1..={} and intermediate positive",
                e.per_token, e.routed, e.layers, m.layers
            ));
        }
        if let Attention::LinearHybrid { full_every, key_heads, value_heads, key_head_dim, value_head_dim, .. } =
            m.attention
            && (full_every == 0
                || full_every > m.layers
                || key_heads == 0
                || value_heads == 0
                || key_head_dim == 0
                || value_head_dim == 0)
        {
            bad(format!(
                "attention: full_every {full_every} must be 1..={} layers and the linear heads and head dims positive",
                m.layers
            ));
        }
        if let Some(c) = &m.checkpoint
            && c.total_bytes.is_some()
            && c.total_source.as_deref().is_none_or(str::is_empty)
        {
            bad("checkpoint.total_bytes needs its total_source (the index's URL)".into());
        }
    }
}

//! Cooling rules: passive cards need server airflow, open-air cards need a gap, the case must
//! move the heat.

use super::coverage::{Figure, Need};
use super::{PartRef, Rule, RuleDoc, Severity, finding};
use crate::estimate::power::ThermalRisk;
use kraftwerk_catalog::PartKind;
use kraftwerk_catalog::{Airflow, GpuCooler};

/// Heat a desktop tower with standard case fans removes at a sane internal temperature, W,
/// when the case publishes no figure (judgement: a typical tower moves 100-150 CFM; at a 15 °C
/// air temperature rise 1 kW needs about 120 CFM, from W = 1.08·CFM·ΔT(°F)/3.412).
pub(crate) const DESKTOP_CASE_HEAT_W: f64 = 1000.0;

/// A case's airflow class for people (`desktop`, `open-frame`).
fn airflow_name(a: Airflow) -> &'static str {
    match a {
        Airflow::Desktop => "desktop",
        Airflow::OpenFrame => "open-frame",
        Airflow::Server => "server",
    }
}

/// Rule: passive datacenter GPUs need server airflow (id and docs in `doc`).
pub(crate) static PASSIVE_AIRFLOW: Rule = Rule {
    doc: RuleDoc {
        id: "passive-airflow",
        family: "cooling",
        severity: Severity::Error,
        title: "Passive datacenter GPUs need server airflow",
        checks: "Passive (fanless) cards against the case's airflow class.",
        why: "A100, H100 PCIe, L40S, L4 and similar cards have no fan: they are specified for ducted server airflow at about 55 °C inlet and overheat in a desktop tower (NVIDIA A100 PCIe product brief: https://docslib.org/doc/3015592/a100-40gb-pcie-product-brief).",
        fix: "Use a server chassis with GPU airflow (airflow: Server), or add a ducted blower per card and monitor temperatures.",
    },
    needs: &[Need::Part(PartKind::Gpu)],
    figures: None,
    check: |c, out| {
        let airflow = c.r.case.map(|k| k.airflow);
        for (i, g) in c.r.gpus.iter().enumerate() {
            let Some(g) = g else { continue };
            if g.cooler != GpuCooler::Passive || airflow == Some(Airflow::Server) {
                continue;
            }
            let (sev, msg) = match (airflow, c.r.case) {
                (None, _) | (_, None) => (
                    Severity::Warning,
                    format!("GPU {} ({}) is passive; no case is chosen to give it server airflow", i + 1, g.name),
                ),
                (Some(a), Some(k)) => (
                    Severity::Error,
                    format!(
                        "GPU {} ({}) is passive but {} has {} airflow, not ducted server airflow",
                        i + 1,
                        g.name,
                        k.name,
                        airflow_name(a)
                    ),
                ),
            };
            out.push(finding(
                &PASSIVE_AIRFLOW,
                sev,
                msg,
                vec![PartRef::Gpu(i), PartRef::Case],
                "Use a server chassis with GPU airflow.",
            ));
        }
    },
};

/// Rule: open-air cards need a gap (id and docs in `doc`).
pub(crate) static OPEN_AIR_GAP: Rule = Rule {
    doc: RuleDoc {
        id: "open-air-gap",
        family: "cooling",
        severity: Severity::Warning,
        title: "Open-air cards need a gap",
        checks: "Open-air (axial fan) cards directly against the next card, with no empty slot between.",
        why: "An open-air card breathes through its fan side; stacked against another card it starves and throttles. Blower cards are made to stack (Zotac: https://www.zotac.com/eu/faq/sli-nvlink-spacing-recommendations).",
        fix: "Leave at least one empty slot between open-air cards, use blower cards, or move cards to risers.",
    },
    needs: &[
        Need::Part(PartKind::Gpu),
        Need::Figure(Figure::BoardSlotLayout),
        Need::Figure(Figure::BoardSlotPositions),
        Need::Figure(Figure::GpuCardUnnamed),
    ],
    figures: None,
    check: |c, out| {
        if super::pcie::slot_positions_unknown(c) {
            return;
        }
        for t in &c.power.gpu_thermal {
            // An owned card named by its chip: its cooler and thickness are its card's (not
            // checked, see `needs`).
            if c.r.card_unnamed(t.gpu) {
                continue;
            }
            if t.risk == ThermalRisk::High && t.reason.starts_with("open-air card with no gap") {
                out.push(finding(
                    &OPEN_AIR_GAP,
                    Severity::Warning,
                    format!("GPU {}: {}", t.gpu + 1, t.reason),
                    vec![PartRef::Gpu(t.gpu)],
                    "Leave one empty slot below it.",
                ));
            }
        }
    },
};

/// Rule: heat inside the case against its airflow (id and docs in `doc`).
pub(crate) static CASE_HEAT: Rule = Rule {
    doc: RuleDoc {
        id: "case-heat",
        family: "cooling",
        severity: Severity::Warning,
        title: "Heat inside the case against its airflow",
        checks: "Sustained heat released in the case (the DC load) against the case's published heat capacity, else 1000 W for a desktop tower (judgement from fan airflow; see the constant's docs). Open frames and server chassis are not limited here.",
        why: "A tower moving 100-150 CFM holds about 1 kW at a 15 °C air temperature rise; beyond that every card inhales the others' exhaust and throttles.",
        fix: "Use an open frame or a server chassis, add high-airflow fans, or lower power limits.",
    },
    needs: &[Need::Part(PartKind::Case)],
    figures: None,
    check: |c, out| {
        let Some(case) = c.r.case else { return };
        let cap = case.max_heat_w.or(match case.airflow {
            Airflow::Desktop => Some(DESKTOP_CASE_HEAT_W),
            Airflow::OpenFrame | Airflow::Server => None,
        });
        let Some(cap) = cap else { return };
        if c.power.case_heat_w > cap {
            out.push(finding(
                &CASE_HEAT,
                Severity::Warning,
                format!("{:.0} W of heat inside {}, which moves about {cap:.0} W", c.power.case_heat_w, case.name),
                vec![PartRef::Case],
                "Use an open frame or server chassis, or lower the GPUs' power limits.",
            ));
        }
    },
};

//! Checks of what NVML reports about the hardware: count, PCIe link under load, NVLink, power
//! limit, memory, ECC, retired pages, XID errors and clock events.

use super::{Observed, Pair, ValidationCheck, probe_device, push};
use crate::grading::{Grade, MEMORY_TOTAL_MIN_FRACTION, POWER_LIMIT_TOLERANCE};
use crate::links::checks::expectations_from_build;
use crate::nvml::GpuSample;
use crate::nvml::topology::Connection;
use crate::reasons::{ClockEventReasons, FAULT_MASK};
use kraftwerk_catalog::{Catalog, Gpu};
use kraftwerk_core::estimate::power::gpu_limit_w;
use kraftwerk_core::rig::Build;
use kraftwerk_core::rig::links::GpuLink;

/// SW power cap (`nvmlClocksEventReasonSwPowerCap`, nvml.h): normal at full load.
const SW_POWER_CAP: u64 = 0x4;

/// The samples of the GPU at position `j`, oldest first.
fn samples(obs: &Observed, j: usize) -> impl Iterator<Item = &GpuSample> {
    obs.snapshots.iter().filter_map(move |s| s.gpu(j))
}

/// GPU count against the build.
pub(super) fn count(out: &mut Vec<ValidationCheck>, planned: &[(usize, &Gpu)], obs: &Observed) {
    let n_live = obs.gpus.len();
    let grade = match n_live.cmp(&planned.len()) {
        std::cmp::Ordering::Equal => Grade::Pass,
        std::cmp::Ordering::Less => Grade::Fail,
        std::cmp::Ordering::Greater => Grade::Warn,
    };
    let reason = match (grade, &obs.nvml) {
        (Grade::Fail, Some(why)) => format!("no GPU could be counted: NVML could not be used ({why})"),
        (Grade::Fail, None) => format!(
            "{} of the build's {} GPU(s) missing (not seated, no power, fallen off the bus)",
            planned.len() - n_live,
            planned.len()
        ),
        (Grade::Warn, _) => "more GPUs than the build plans".to_owned(),
        _ => "as planned".to_owned(),
    };
    push(out, "gpu-count", None, grade, format!("{} GPU(s)", planned.len()), format!("{n_live} GPU(s)"), reason);
    let mut uuids: Vec<&str> = obs.gpus.iter().filter_map(|g| g.uuid.as_deref()).collect();
    uuids.sort_unstable();
    let before = uuids.len();
    uuids.dedup();
    if uuids.len() != before {
        push(
            out,
            "gpu-uuid",
            None,
            Grade::Fail,
            "unique UUIDs".into(),
            "duplicate UUIDs".into(),
            "two devices report the same UUID",
        );
    }
}

/// The negotiated PCIe link under load against the build's slot link. Only a sample under load
/// can pass: idle links downshift to save power (a low link seen only at idle is "not
/// measured"), and NVML's maximum is what the card and slot support, not what they negotiated
/// (without a sample under load the check is "not measured"). NVML's maximum link below the
/// slot's fails (the link cannot train higher).
///
/// `wiring_known` is false when the board's slot wiring is not in the catalog: `link` is then the
/// card's own link ([`GpuLink::card_only`]) and a shortfall warns instead of failing (the board
/// may wire that slot narrower).
#[allow(
    clippy::many_single_char_names,
    reason = "i/j are the build and live GPU positions of a Pair; g/w a PCIe generation and width, as in Gen5 x16"
)]
pub(super) fn pcie_link(
    out: &mut Vec<ValidationCheck>,
    obs: &Observed,
    (i, _, j): Pair<'_>,
    link: &GpuLink,
    wiring_known: bool,
) {
    let l = &obs.gpus[j];
    let (eg, el) = (u32::from(link.pcie_gen), u32::from(link.lanes));
    let exp = if wiring_known {
        format!("PCIe Gen{eg} x{el}")
    } else {
        format!("up to the card's PCIe Gen{eg} x{el} (slot wiring unknown)")
    };
    let mut load: Vec<(u32, u32)> =
        samples(obs, j).filter(|s| s.under_load() == Some(true)).filter_map(|s| s.pcie_gen.zip(s.pcie_width)).collect();
    if let Some(s) = probe_device(obs, j).and_then(|d| d.sustained.as_ref()) {
        load.extend(s.samples.iter().filter_map(|x| x.pcie_gen.zip(x.pcie_width)));
    }
    let idle: Vec<(u32, u32)> =
        samples(obs, j).filter(|s| s.under_load() != Some(true)).filter_map(|s| s.pcie_gen.zip(s.pcie_width)).collect();
    let below = |&(g, w): &(u32, u32)| g < eg || w < el;
    let max = l.pcie_gen_max.zip(l.pcie_width_max);
    let (grade, measured, why) = if let Some((g, w)) = max.filter(below) {
        (
            Grade::Fail,
            format!("PCIe Gen{g} x{w} (NVML maximum)"),
            format!(
                "the link cannot train above Gen{g} x{w}, below the Gen{eg} x{el} of the slot and card (reseat, riser, BIOS setting)"
            ),
        )
    } else if let Some(&(g, w)) = load.iter().filter(|x| below(x)).min() {
        let n = load.iter().filter(|x| below(x)).count();
        (
            Grade::Fail,
            format!("PCIe Gen{g} x{w} under load"),
            format!(
                "under load the link ran at Gen{g} x{w} in {n} of {} samples, below the Gen{eg} x{el} of the slot and card (reseat, riser, signal integrity)",
                load.len()
            ),
        )
    } else if !load.is_empty() {
        let (g, w) = load.iter().copied().min().unwrap_or((eg, el));
        let idle_low = idle.iter().filter(|x| below(x)).min();
        let (grade, why) = if link.pcie_gen < link.gpu_gen || link.lanes < link.gpu_lanes {
            (Grade::Warn, "the slot caps the card below its own link".to_owned())
        } else if let Some(&(ig, iw)) = idle_low {
            (
                Grade::Info,
                format!(
                    "full link under load; Gen{ig} x{iw} only at idle (GPUs lower their link to save power, not a fault)"
                ),
            )
        } else {
            (Grade::Pass, "full link under load".to_owned())
        };
        (grade, format!("PCIe Gen{g} x{w} under load ({} samples)", load.len()), why)
    } else if let Some(&(g, w)) = idle.iter().filter(|x| below(x)).min() {
        (
            Grade::NotMeasured,
            format!("PCIe Gen{g} x{w} at idle"),
            format!(
                "not measured under load: Gen{g} x{w} seen only at idle (GPUs lower their link to save power, so it proves no fault); run the probe so the link is read under load"
            ),
        )
    } else if let Some((g, w)) = max {
        (
            Grade::NotMeasured,
            format!("no sample under load (NVML maximum Gen{g} x{w})"),
            "not measured: no sample under load, and NVML's maximum is what the card and slot support, not what they negotiated; run the probe so the link is read under load".to_owned(),
        )
    } else {
        (
            Grade::NotMeasured,
            "no link reading".to_owned(),
            "not measured: NVML gave no PCIe link reading for this GPU".to_owned(),
        )
    };
    let (grade, why) = if grade == Grade::Fail && !wiring_known {
        (
            Grade::Warn,
            format!(
                "{why}; the board's slot wiring is not in the catalog, so this may be how the slot is wired (a chipset or shared slot): check the manual"
            ),
        )
    } else {
        (grade, why)
    };
    push(out, "pcie-link-live", Some(i), grade, exp, measured, why);
}

/// The enforced power limit against the build's.
pub(super) fn power_limit(out: &mut Vec<ValidationCheck>, build: &Build, obs: &Observed, (i, g, j): Pair<'_>) {
    let l = &obs.gpus[j];
    let planned_w = gpu_limit_w(g, build.gpus[i].power_limit_w);
    let Some(enforced) = l.power_limit_enforced_w.or(l.power_limit_w) else { return };
    let off = (enforced - planned_w) / planned_w;
    let (grade, why) = if off.abs() <= POWER_LIMIT_TOLERANCE {
        (Grade::Pass, "as planned".to_owned())
    } else if off < 0.0 {
        (
            Grade::Warn,
            format!(
                "{enforced:.0} W is {:.0} % below the build's {planned_w:.0} W: the GPU delivers less than planned (nvidia-smi -pl, a BMC or datacenter cap)",
                -off * 100.0
            ),
        )
    } else {
        (
            Grade::Warn,
            format!(
                "{enforced:.0} W is {:.0} % above the build's {planned_w:.0} W: the power estimate and PSU advice assume the planned limit",
                off * 100.0
            ),
        )
    };
    push(out, "power-limit", Some(i), grade, format!("{planned_w:.0} W"), format!("{enforced:.0} W enforced"), why);
}

/// Installed memory, uncorrected ECC errors, retired pages and XID errors.
#[allow(
    clippy::many_single_char_names,
    reason = "i/j are the build and live GPU positions of a Pair; g/w a PCIe generation and width, as in Gen5 x16"
)]
pub(super) fn memory_and_health(out: &mut Vec<ValidationCheck>, obs: &Observed, (i, g, j): Pair<'_>) {
    let l = &obs.gpus[j];
    if let Some(mib) = l.memory_total_mib {
        let gib = mib as f64 / 1024.0;
        let grade = if gib >= g.memory_gib * MEMORY_TOTAL_MIN_FRACTION { Grade::Pass } else { Grade::Warn };
        let why = if grade == Grade::Pass {
            "as the catalog says".to_owned()
        } else {
            format!("{gib:.1} GiB is less than the catalog's {:.1} GiB (MIG, a different SKU?)", g.memory_gib)
        };
        push(out, "memory", Some(i), grade, format!("{:.1} GiB", g.memory_gib), format!("{gib:.1} GiB"), why);
    }
    let last = |f: fn(&GpuSample) -> Option<u64>| samples(obs, j).filter_map(f).max();
    let vol = last(|s| s.ecc_uncorrected_volatile);
    let agg = last(|s| s.ecc_uncorrected_aggregate);
    if vol.is_some() || agg.is_some() {
        let (v, a) = (vol.unwrap_or(0), agg.unwrap_or(0));
        let grade = if v > 0 || a > 0 { Grade::Fail } else { Grade::Pass };
        let why = if grade == Grade::Fail {
            format!(
                "{v} uncorrected ECC error(s) since the driver loaded, {a} over the GPU's life: memory corrupts data (RMA)"
            )
        } else {
            "no uncorrected ECC error".to_owned()
        };
        push(out, "ecc", Some(i), grade, "0 uncorrected".into(), format!("{v} volatile, {a} aggregate"), why);
    }
    let retired = last(|s| s.retired_pages);
    let pending = samples(obs, j).filter_map(|s| s.retired_pages_pending).any(|p| p);
    if retired.is_some() || pending {
        let n = retired.unwrap_or(0);
        let (grade, why) = if pending {
            (
                Grade::Fail,
                format!("{n} retired page(s) and a retirement pending: reset the GPU, then watch it (RMA if it grows)"),
            )
        } else if n > 0 {
            (Grade::Warn, format!("{n} page(s) retired for ECC errors over the GPU's life"))
        } else {
            (Grade::Pass, "no retired page".to_owned())
        };
        push(
            out,
            "retired-pages",
            Some(i),
            grade,
            "0 retired, none pending".into(),
            format!("{n} retired{}", if pending { ", pending" } else { "" }),
            why,
        );
    }
    let mut xids: Vec<u64> = samples(obs, j).filter_map(|s| s.xid_errors.as_ref()).flatten().copied().collect();
    let watched = samples(obs, j).any(|s| s.xid_errors.is_some());
    if watched {
        xids.dedup();
        let grade = if xids.is_empty() { Grade::Pass } else { Grade::Fail };
        let measured = if xids.is_empty() {
            "none".to_owned()
        } else {
            xids.iter().map(|x| format!("XID {x}")).collect::<Vec<_>>().join(", ")
        };
        let why = if xids.is_empty() {
            "no critical XID error while recorded".to_owned()
        } else {
            format!(
                "the driver reported critical {measured} (NVIDIA XID catalog: https://docs.nvidia.com/deploy/xid-errors/)"
            )
        };
        push(out, "xid", Some(i), grade, "no critical XID".into(), measured, why);
    }
}

/// Clock event reasons under load (recorded samples under load and the probe's sustained
/// load): thermal or hardware slowdown or power brake fails (DCGM's failure mask); the software
/// power cap alone is information (normal at full load).
pub(super) fn clock_events(out: &mut Vec<ValidationCheck>, obs: &Observed, (i, _, j): Pair<'_>) {
    let mut bits = 0u64;
    let mut seen = false;
    for s in samples(obs, j).filter(|s| s.under_load() == Some(true)) {
        if let Some(r) = s.clock_event_reasons {
            bits |= r.bits();
            seen = true;
        }
    }
    if let Some(s) = probe_device(obs, j).and_then(|d| d.sustained.as_ref()).filter(|s| !s.samples.is_empty()) {
        bits |= s.clock_event_reasons;
        seen = true;
    }
    if !seen {
        return;
    }
    let names = ClockEventReasons(bits).names();
    let measured = if names.is_empty() { "none".to_owned() } else { names.join(", ") };
    let faults = bits & FAULT_MASK;
    if faults != 0 {
        let f = ClockEventReasons(faults).names().join(", ");
        push(
            out,
            "clock-events",
            Some(i),
            Grade::Fail,
            "no slowdown".into(),
            measured,
            format!(
                "{f} under load (0x{faults:x}): thermal or hardware slowdown (DCGM failure mask); check cooling, power cables and the PSU"
            ),
        );
    } else if bits & SW_POWER_CAP != 0 {
        push(
            out,
            "clock-events",
            Some(i),
            Grade::Info,
            "no slowdown".into(),
            measured,
            "software power cap only (0x4): the GPU runs at its power limit, normal at full load",
        );
    } else {
        push(out, "clock-events", Some(i), Grade::Pass, "no slowdown".into(), measured, "no slowdown under load");
    }
}

/// NVLink between build GPUs that should have it (SXM modules, bridged pairs), from the
/// recorded topology.
pub(super) fn nvlink(
    out: &mut Vec<ValidationCheck>,
    build: &Build,
    catalog: &Catalog,
    obs: &Observed,
    pairs: &[Pair<'_>],
) {
    let Some(topology) = &obs.topology else { return };
    let exp = expectations_from_build(build, catalog);
    let live_of = |i: usize| pairs.iter().find(|p| p.0 == i).map(|p| p.2);
    for p in exp.pairs.iter().filter(|p| p.nvlink) {
        let (Some(a), Some(b)) = (live_of(p.gpu_a), live_of(p.gpu_b)) else { continue };
        let (grade, measured, why) = match topology.connection(a, b) {
            Some(Connection::NvLink { links }) => {
                (Grade::Pass, format!("NV{links}"), format!("{links} NVLink links active"))
            }
            Some(Connection::Pcie { ancestor }) => (
                Grade::Fail,
                format!("no NVLink ({})", ancestor.smi_code()),
                format!(
                    "NVLink expected ({}) but 0 links are active: GPUs {} and {} talk over PCIe (fabric manager stopped, bridge missing, links down)",
                    p.link.describe(),
                    p.gpu_a + 1,
                    p.gpu_b + 1
                ),
            ),
            Some(Connection::Unknown) | None => {
                (Grade::Warn, "unknown".to_owned(), "NVLink expected but NVML reported no link state".to_owned())
            }
        };
        push(
            out,
            "nvlink-active",
            Some(p.gpu_a),
            grade,
            format!("NVLink GPU {} ↔ GPU {}", p.gpu_a + 1, p.gpu_b + 1),
            measured,
            why,
        );
    }
}

//! Grading a parsed dump against a build: the same checks as a recording, then what only a
//! dump needs (an idle link is information, not a failure; clock event reasons at idle; ECC,
//! retired pages and XIDs; the attached GPU count; a `topo -m` matrix alone).

use super::{GPU_IDLE, SW_POWER_CAP, SmiDump, SmiError, SmiGpu, parse};
use crate::grading::Grade;
use crate::links::checks::expectations_from_build;
use crate::nvml::GpuStatic;
use crate::nvml::topology::Connection;
use crate::probe::match_catalog_gpu;
use crate::reasons::{ClockEventReasons, FAULT_MASK};
use crate::validate::{Validation, ValidationCheck, validate_observed};
use kraftwerk_catalog::Catalog;
use kraftwerk_core::rig::Build;

/// Reads `text` as `nvidia-smi` output and grades it against the build: the same checks as a
/// recording ([`validate_observed`]), then what only a dump needs (see the module docs).
///
/// # Errors
/// [`SmiError`] from [`parse`].
pub fn validate_text(build: &Build, catalog: &Catalog, file: &str, text: &str) -> Result<Validation, SmiError> {
    let dump = parse(file, text)?;
    Ok(validate_dump(build, catalog, &dump))
}

/// Grades a parsed dump against the build: [`validate_observed`] on [`SmiDump::observed`], then
/// - `pcie-link-live` that passed on an idle snapshot (only the maximum link judged) becomes
///   info: the link under load was not measured;
/// - `clock-events` of an idle snapshot (the shared check reads reasons under load only): a
///   hardware or thermal slowdown fails, anything else is info, never a pass;
/// - `remapped-rows`, `ecc-mode` and `persistence-mode` from the dump;
/// - `gpu-count` from `Attached GPUs` when the dump shows fewer sections (`-q -i`);
/// - for a `topo -m` without `-q`: no product names, so `gpu-model` is info and NVLink is
///   checked by position (the build's GPU k is GPUk), as the reason says;
/// - `probe` (warn): no measurement in a dump, so the verdict cannot be PASS.
pub fn validate_dump(build: &Build, catalog: &Catalog, dump: &SmiDump) -> Validation {
    let obs = dump.observed();
    let mut v = validate_observed(build, catalog, &obs);
    let pairs = pair_up(build, catalog, &obs.gpus);
    for &(i, j) in &pairs {
        let Some(g) = dump.gpus.get(j) else { continue };
        idle_link(&mut v.checks, i, g);
        idle_clock_events(&mut v.checks, i, g);
        dump_health(&mut v.checks, i, g);
    }
    attached_count(&mut v.checks, build, catalog, dump);
    if dump.gpus.is_empty() {
        topo_only(&mut v.checks, build, catalog, dump);
    }
    // No probe data: `validate_observed` already grades `probe` as not measured (an
    // nvidia-smi dump has no GEMM, bandwidth or load test), so the verdict cannot be PASS.
    v.overall = Grade::worst(v.checks.iter().map(|c| c.grade));
    v
}

/// Build GPUs matched to dump GPUs by catalog model, in order: (build index, dump position).
/// The same rule as the shared `gpu-model` check.
fn pair_up(build: &Build, catalog: &Catalog, live: &[GpuStatic]) -> Vec<(usize, usize)> {
    let r = build.resolve(catalog);
    let mut taken = vec![false; live.len()];
    let mut out = Vec::new();
    for (i, g) in r.gpus.iter().enumerate() {
        let Some(g) = g else { continue };
        let is_model = |l: &GpuStatic| {
            l.name.as_deref().is_some_and(|name| match match_catalog_gpu(catalog, name, l.power_limit_max_w) {
                Ok(Some(m)) => m.id == g.id,
                Err(ids) => ids.contains(&g.id),
                Ok(None) => false,
            })
        };
        if let Some(j) = live.iter().enumerate().position(|(j, l)| !taken[j] && is_model(l)) {
            taken[j] = true;
            out.push((i, j));
        }
    }
    out
}

fn load_words(g: &SmiGpu) -> String {
    match g.utilization_gpu_pct {
        Some(u) => format!("utilization {u} %"),
        None => "utilization unknown".to_owned(),
    }
}

fn idle_link(checks: &mut [ValidationCheck], i: usize, g: &SmiGpu) {
    if let (Some(host), Some(dev)) = (g.pcie_gen_host_max, g.pcie_gen_device_max)
        && host < dev
    {
        for c in checks.iter_mut().filter(|c| c.check == "pcie-link-live" && c.gpu == Some(i) && c.grade == Grade::Fail)
        {
            c.reason = format!(
                "{}; the dump says Host Max Gen{host} against Device Max Gen{dev}: the slot or platform is PCIe {host}.0",
                c.reason
            );
        }
    }
    if g.under_load() == Some(true) {
        return;
    }
    for c in checks.iter_mut().filter(|c| c.check == "pcie-link-live" && c.gpu == Some(i) && c.grade == Grade::Pass) {
        c.grade = Grade::Info;
        c.reason = format!(
            "not measured under load: the dump is one idle snapshot ({}, current link {}), and an idle GPU lowers its link to save power; the maximum link matches the build, which is all an idle dump can show",
            load_words(g),
            match (g.pcie_gen_current, g.pcie_width_current) {
                (Some(a), Some(b)) => format!("Gen{a} x{b}"),
                _ => "unknown".to_owned(),
            }
        );
    }
}

fn idle_clock_events(checks: &mut Vec<ValidationCheck>, i: usize, g: &SmiGpu) {
    if g.under_load() == Some(true) {
        return;
    }
    let Some(r) = g.clock_event_reasons else { return };
    let names = r.names();
    let measured =
        format!("{} ({})", if names.is_empty() { "none".to_owned() } else { names.join(", ") }, load_words(g));
    let faults = r.bits() & FAULT_MASK;
    let (grade, reason) = if faults != 0 {
        (
            Grade::Fail,
            format!(
                "{} active (0x{faults:x}) even without load: a hardware or thermal slowdown (DCGM failure mask); an external power-brake signal, overheating or the power supply holds the clocks down",
                ClockEventReasons(faults).names().join(", ")
            ),
        )
    } else if r.bits() & SW_POWER_CAP != 0 {
        (Grade::Info, "software power cap in an idle snapshot: clocks held by the power limit; nothing here says how the GPU behaves under load".to_owned())
    } else if r.bits() & GPU_IDLE != 0 || r.bits() == 0 {
        (
            Grade::Info,
            "no slowdown reason in the snapshot, but it was taken without load: throttling under load was not observed"
                .to_owned(),
        )
    } else {
        (
            Grade::Info,
            "no fault reason in the snapshot; taken without load, so throttling under load was not observed".to_owned(),
        )
    };
    checks.push(ValidationCheck {
        check: "clock-events".into(),
        gpu: Some(i),
        grade,
        expected: "no slowdown".into(),
        measured,
        reason,
    });
}

fn dump_health(checks: &mut Vec<ValidationCheck>, i: usize, g: &SmiGpu) {
    let mut push = |check: &str, grade: Grade, expected: &str, measured: String, reason: String| {
        checks.push(ValidationCheck {
            check: check.into(),
            gpu: Some(i),
            grade,
            expected: expected.into(),
            measured,
            reason,
        });
    };
    let rows =
        (g.remapped_rows_correctable, g.remapped_rows_uncorrectable, g.remapped_rows_pending, g.remapped_rows_failure);
    if rows != (None, None, None, None) {
        let unc = g.remapped_rows_uncorrectable.unwrap_or(0);
        let measured = format!(
            "{} correctable, {} uncorrectable{}{}",
            g.remapped_rows_correctable.map_or_else(|| "unknown".into(), |x| x.to_string()),
            g.remapped_rows_uncorrectable.map_or_else(|| "unknown".into(), |x| x.to_string()),
            if g.remapped_rows_pending == Some(true) { ", remap pending" } else { "" },
            if g.remapped_rows_failure == Some(true) { ", remapping failure" } else { "" },
        );
        let (grade, reason) = if g.remapped_rows_failure == Some(true) {
            (
                Grade::Fail,
                "a row remapping failed: the memory has no spare rows left for its errors (NVIDIA: RMA the GPU)"
                    .to_owned(),
            )
        } else if g.remapped_rows_pending == Some(true) {
            (
                Grade::Warn,
                "a row remap is pending: reset the GPU (or reboot) to apply it, then watch the counters".to_owned(),
            )
        } else if unc > 0 {
            (Grade::Warn, format!("{unc} row(s) remapped for uncorrectable errors over the GPU's life"))
        } else {
            (Grade::Pass, "no row remapped for an uncorrectable error, none pending, no failure".to_owned())
        };
        push("remapped-rows", grade, "no failure, none pending", measured, reason);
    }
    if let Some(on) = g.ecc_enabled {
        let pending = g.ecc_pending_enabled.filter(|p| *p != on);
        let measured = format!(
            "{}{}",
            if on { "enabled" } else { "disabled" },
            pending.map_or(String::new(), |p| format!(
                " ({} after the next reboot)",
                if p { "enabled" } else { "disabled" }
            ))
        );
        let (grade, reason) = if on {
            (Grade::Pass, "ECC on: memory errors are corrected or reported".to_owned())
        } else {
            (Grade::Info, "ECC supported but off: memory errors go undetected (enable with nvidia-smi -e 1 and a reboot if the workload needs it)".to_owned())
        };
        push("ecc-mode", grade, "enabled (where supported)", measured, reason);
    }
    if let Some(p) = g.persistence_mode {
        let (grade, reason) = if p {
            (Grade::Pass, "the driver stays loaded between jobs".to_owned())
        } else {
            (Grade::Info, "persistence mode off: the driver loads again for each job (slower start, settings such as -pl can reset); nvidia-smi -pm 1 or nvidia-persistenced".to_owned())
        };
        push("persistence-mode", grade, "enabled", if p { "enabled".into() } else { "disabled".into() }, reason);
    }
}

/// `gpu-count` from `Attached GPUs` when the dump shows fewer GPU sections than the driver sees.
fn attached_count(checks: &mut [ValidationCheck], build: &Build, catalog: &Catalog, dump: &SmiDump) {
    let Some(attached) = dump.attached_gpus.and_then(|a| usize::try_from(a).ok()) else { return };
    if attached == dump.gpus.len() || dump.gpus.is_empty() {
        return;
    }
    let planned = build.resolve(catalog).gpus.iter().flatten().count();
    let Some(c) = checks.iter_mut().find(|c| c.check == "gpu-count") else { return };
    c.grade = match attached.cmp(&planned) {
        std::cmp::Ordering::Equal => Grade::Pass,
        std::cmp::Ordering::Less => Grade::Fail,
        std::cmp::Ordering::Greater => Grade::Warn,
    };
    c.measured = format!("{attached} GPU(s) attached ({} shown in the dump)", dump.gpus.len());
    c.reason = format!(
        "Attached GPUs says {attached}; the dump shows {} GPU section(s) (made with -i?), so only those are checked",
        dump.gpus.len()
    );
}

/// A `topo -m` without `-q`: no product names (the model is not checked) and NVLink by
/// position.
fn topo_only(checks: &mut Vec<ValidationCheck>, build: &Build, catalog: &Catalog, dump: &SmiDump) {
    let Some(t) = &dump.topology else { return };
    for c in checks.iter_mut().filter(|c| c.check == "gpu-model" && c.grade == Grade::Fail) {
        c.grade = Grade::Info;
        c.measured = "unknown (topo -m has no product names)".into();
        c.reason = "not checked: nvidia-smi topo -m shows no product names; add the -q output to the same file".into();
    }
    let topo = t.topology();
    for p in expectations_from_build(build, catalog).pairs.iter().filter(|p| p.nvlink) {
        let (grade, measured, why) = match topo.connection(p.gpu_a, p.gpu_b) {
            Some(Connection::NvLink { links }) => (
                Grade::Pass,
                format!("NV{links}"),
                format!("{links} NVLink links between GPU{} and GPU{} of topo -m", p.gpu_a, p.gpu_b),
            ),
            Some(Connection::Pcie { ancestor }) => (
                Grade::Fail,
                format!("no NVLink ({})", ancestor.smi_code()),
                format!(
                    "NVLink expected ({}) but topo -m shows GPU{} and GPU{} connected by {} ({}): bridge missing or links down",
                    p.link.describe(),
                    p.gpu_a,
                    p.gpu_b,
                    ancestor.smi_code(),
                    ancestor.describe()
                ),
            ),
            Some(Connection::Unknown) | None => (
                Grade::Warn,
                "unknown".into(),
                "NVLink expected but topo -m names no known connection for this pair".into(),
            ),
        };
        checks.push(ValidationCheck {
            check: "nvlink-active".into(),
            gpu: Some(p.gpu_a),
            grade,
            expected: format!("NVLink GPU {} ↔ GPU {}", p.gpu_a + 1, p.gpu_b + 1),
            measured,
            reason: format!("{why} (topo -m alone: the build's GPU k is taken to be GPUk)"),
        });
    }
}

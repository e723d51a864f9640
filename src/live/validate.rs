//! Validating the real machine against its build: the GPUs NVML sees and the probe's
//! measurements against what the build and the catalog say they should be.
//!
//! Each check is graded pass / info / warn / fail with its numbers and the reason, following
//! `shared/reference/validation.md` (DCGM thresholds, stas00's achievable matmul fractions).

use super::nvml::GpuStatic;
use super::probe::grade::{Grade, achievable_fraction};
use super::probe::{Precision, ProbeReport, match_catalog_gpu};
use crate::build::Build;
use crate::build::links::{gpu_links, lane_gb_s};
use crate::catalog::{Catalog, Gpu};
use crate::estimate::power::gpu_limit_w;
use serde::Serialize;

/// Below this fraction of the expected (achievable) rate a GEMM result warns (validation.md).
pub const TFLOPS_WARN: f64 = 0.9;
/// Below this fraction it fails (validation.md).
pub const TFLOPS_FAIL: f64 = 0.75;
/// Host↔device bandwidth under this fraction of the link's theoretical rate warns
/// (validation.md: "below 80 % of the expected figure: warn").
pub const BANDWIDTH_WARN: f64 = 0.8;
/// Average power under the targeted load must reach this fraction of the limit (DCGM targeted
/// power: average at least 0.75 x target).
pub const POWER_MIN_FRACTION: f64 = 0.75;

/// Clock event reasons that fail a GPU under load (DCGM's failure mask, validation.md).
const FAULTS: [&str; 4] = ["HW_SLOWDOWN", "SW_THERMAL", "HW_THERMAL", "HW_POWER_BRAKE"];

/// One graded check.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ValidationCheck {
    /// What is checked (`gpu-count`, `pcie-link`, `power-limit`, `memory`, `gemm-bf16`, ...).
    pub check: String,
    /// Which GPU (build index), if one.
    pub gpu: Option<usize>,
    /// Grade.
    pub grade: Grade,
    /// What the build and catalog expect.
    pub expected: String,
    /// What was measured.
    pub measured: String,
    /// Why this grade.
    pub reason: String,
}

/// The result of validating a machine against a build.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Validation {
    /// Build name.
    pub build: String,
    /// Checks in order.
    pub checks: Vec<ValidationCheck>,
    /// Worst grade (info counts as pass).
    pub overall: Grade,
}

fn push(
    out: &mut Vec<ValidationCheck>,
    check: &str,
    gpu: Option<usize>,
    grade: Grade,
    expected: String,
    measured: String,
    reason: impl Into<String>,
) {
    out.push(ValidationCheck { check: check.to_owned(), gpu, grade, expected, measured, reason: reason.into() });
}

/// Validates the live GPUs (`live`, in NVML order) and an optional probe report against the
/// build. Live GPUs are matched to the build's GPUs by model, in order.
pub fn validate(build: &Build, catalog: &Catalog, live: &[GpuStatic], probe: Option<&ProbeReport>) -> Validation {
    let r = build.resolve(catalog);
    let links = gpu_links(&r);
    let mut out = Vec::new();
    let planned: Vec<(usize, &Gpu)> = r.gpus.iter().enumerate().filter_map(|(i, g)| g.map(|g| (i, g))).collect();

    // 1. Count.
    let n_live = live.len();
    let grade = match n_live.cmp(&planned.len()) {
        std::cmp::Ordering::Equal => Grade::Pass,
        std::cmp::Ordering::Less => Grade::Fail,
        std::cmp::Ordering::Greater => Grade::Warn,
    };
    push(
        &mut out,
        "gpu-count",
        None,
        grade,
        format!("{} GPU(s)", planned.len()),
        format!("{n_live} GPU(s)"),
        match grade {
            Grade::Fail => "a GPU the build has is missing (not seated, no power, fallen off the bus)",
            Grade::Warn => "more GPUs than the build plans",
            _ => "as planned",
        },
    );
    let mut uuids: Vec<&str> = live.iter().filter_map(|g| g.uuid.as_deref()).collect();
    uuids.sort_unstable();
    let before = uuids.len();
    uuids.dedup();
    if uuids.len() != before {
        push(
            &mut out,
            "gpu-uuid",
            None,
            Grade::Fail,
            "unique UUIDs".into(),
            "duplicate UUIDs".into(),
            "two devices report the same UUID",
        );
    }

    // 2. Match live GPUs to planned ones by model, in order.
    let mut taken = vec![false; live.len()];
    let mut pairs: Vec<(usize, &Gpu, usize)> = Vec::new();
    for &(i, g) in &planned {
        let found = live.iter().enumerate().position(|(j, l)| {
            !taken[j] && l.name.as_deref().is_some_and(|name| {
                matches!(match_catalog_gpu(catalog, name, l.power_limit_max_w), Ok(Some(m)) if m.id == g.id)
                    || matches!(match_catalog_gpu(catalog, name, l.power_limit_max_w), Err(ids) if ids.contains(&g.id))
            })
        });
        match found {
            Some(j) => {
                taken[j] = true;
                pairs.push((i, g, j));
                push(&mut out, "gpu-model", Some(i), Grade::Pass, g.name.clone(), live[j].label(), "model matches");
            }
            None => push(
                &mut out,
                "gpu-model",
                Some(i),
                Grade::Fail,
                g.name.clone(),
                "none left".into(),
                "no installed GPU of this model is left to match",
            ),
        }
    }

    for &(i, g, j) in &pairs {
        let l = &live[j];
        // 3. PCIe link: the slot's effective link against the card's maximum.
        if let Some(link) = links.iter().find(|x| x.gpu == i)
            && let (Some(gen_max), Some(width_max)) = (l.pcie_gen_max, l.pcie_width_max)
        {
            let exp = format!("PCIe {}.0 x{}", link.pcie_gen, link.lanes);
            let got = format!("PCIe {gen_max}.0 x{width_max} (max)");
            let (grade, why) = if gen_max < u32::from(link.pcie_gen) || width_max < u32::from(link.lanes) {
                (Grade::Fail, "the link trains below what the slot and card support (reseat, riser, BIOS setting)")
            } else if link.pcie_gen < link.gpu_gen || link.lanes < link.gpu_lanes {
                (Grade::Warn, "the slot caps the card below its own link")
            } else {
                (Grade::Pass, "full link")
            };
            push(&mut out, "pcie-link", Some(i), grade, exp, got, why);
        }
        // 4. Power limit.
        let planned_w = gpu_limit_w(g, build.gpus[i].power_limit_w);
        if let Some(enforced) = l.power_limit_enforced_w.or(l.power_limit_w) {
            let off = (enforced - planned_w).abs() / planned_w;
            let grade = if off <= 0.05 { Grade::Pass } else { Grade::Warn };
            push(
                &mut out,
                "power-limit",
                Some(i),
                grade,
                format!("{planned_w:.0} W"),
                format!("{enforced:.0} W enforced"),
                if grade == Grade::Pass {
                    "as planned"
                } else {
                    "differs from the build's limit: the power estimate and advice assume the planned one"
                },
            );
        }
        // 5. Memory.
        if let Some(mib) = l.memory_total_mib {
            let gib = mib as f64 / 1024.0;
            let grade = if gib >= g.memory_gib * 0.97 { Grade::Pass } else { Grade::Warn };
            push(
                &mut out,
                "memory",
                Some(i),
                grade,
                format!("{:.1} GiB", g.memory_gib),
                format!("{gib:.1} GiB"),
                if grade == Grade::Pass {
                    "as the catalog says"
                } else {
                    "less memory than the catalog's figure (MIG, a different SKU?)"
                },
            );
        }
        // 6. ECC health where NVML reports it is covered by the probe and live tabs.
    }

    // 7. Probe measurements, matched by UUID to the live GPU.
    if let Some(p) = probe {
        for &(i, g, j) in &pairs {
            let uuid = live[j].uuid.as_deref();
            let Some(d) =
                p.devices.iter().find(|d| d.uuid.as_deref().is_some() && d.uuid.as_deref() == uuid).or_else(|| {
                    if uuid.is_none() && p.devices.iter().all(|d| d.uuid.is_none()) { p.devices.get(j) } else { None }
                })
            else {
                continue;
            };
            if d.faulty {
                push(
                    &mut out,
                    "arithmetic",
                    Some(i),
                    Grade::Fail,
                    "correct results".into(),
                    "wrong result, NaN or run-to-run mismatch".into(),
                    "the GPU computes wrongly: faulty",
                );
            } else if !d.gemm.is_empty() {
                push(
                    &mut out,
                    "arithmetic",
                    Some(i),
                    Grade::Pass,
                    "correct results".into(),
                    format!("{} precisions checked", d.gemm.len()),
                    "known-answer and run-to-run checks passed",
                );
            }
            for res in &d.gemm {
                let peak = match res.precision {
                    Precision::Fp32 => g.peak.fp32,
                    Precision::Tf32 => g.peak.tf32,
                    Precision::Fp16 => g.peak.fp16,
                    Precision::Bf16 => g.peak.bf16,
                    Precision::Fp8 => g.peak.fp8,
                };
                let Some(peak) = peak else { continue };
                // Best measured fraction of the dense peak for this GPU and precision (stas00).
                let frac = achievable_fraction(&g.name, res.precision).fraction;
                let expect = peak * frac;
                let got = res.tflops.median;
                let ratio = got / expect;
                let grade = if ratio >= TFLOPS_WARN {
                    Grade::Pass
                } else if ratio >= TFLOPS_FAIL {
                    Grade::Warn
                } else {
                    Grade::Fail
                };
                push(
                    &mut out,
                    &format!("gemm-{}", res.precision.name()),
                    Some(i),
                    grade,
                    format!(
                        "at least {:.0} TFLOP/s ({:.0} % of the {peak:.0} dense peak)",
                        expect * TFLOPS_WARN,
                        frac * 100.0
                    ),
                    format!("{got:.1} TFLOP/s median at n={} ({:.0} % of peak)", res.n, got / peak * 100.0),
                    format!(
                        "{ratio:.2}x of the achievable rate (warn under {TFLOPS_WARN}x, fail under {TFLOPS_FAIL}x)"
                    ),
                );
            }
            if let Some(bw) = &d.bandwidth
                && let Some(link) = links.iter().find(|x| x.gpu == i)
            {
                let theory = lane_gb_s(link.pcie_gen) * f64::from(link.lanes);
                for (what, v) in [("h2d", &bw.pinned_h2d_gb_s), ("d2h", &bw.pinned_d2h_gb_s)] {
                    let Some(v) = v else { continue };
                    let grade = if v.median >= BANDWIDTH_WARN * theory { Grade::Pass } else { Grade::Warn };
                    push(
                        &mut out,
                        &format!("bandwidth-{what}"),
                        Some(i),
                        grade,
                        format!(
                            "at least {:.1} GB/s (80 % of PCIe {}.0 x{} = {theory:.1})",
                            BANDWIDTH_WARN * theory,
                            link.pcie_gen,
                            link.lanes
                        ),
                        format!("{:.1} GB/s pinned", v.median),
                        if grade == Grade::Pass {
                            "as the link allows"
                        } else {
                            "below the link's rate: wrong NUMA node, a downtrained link or a shared switch"
                        },
                    );
                }
            }
            if let Some(s) = &d.sustained {
                let limit = s.power_limit_w.unwrap_or_else(|| gpu_limit_w(g, build.gpus[i].power_limit_w));
                if let Some(pw) = &s.power_w {
                    let grade = if pw.median >= POWER_MIN_FRACTION * limit { Grade::Pass } else { Grade::Warn };
                    push(
                        &mut out,
                        "load-power",
                        Some(i),
                        grade,
                        format!(
                            "at least {:.0} W under full load (estimator: {limit:.0} W at the limit)",
                            POWER_MIN_FRACTION * limit
                        ),
                        format!("{:.0} W median, {:.0} W max (1 s average)", pw.median, pw.max),
                        if grade == Grade::Pass {
                            "the GPU reaches its planned power"
                        } else {
                            "under load the GPU stays far below its limit (throttling, weak PSU rail)"
                        },
                    );
                }
                let faults: Vec<&String> = s
                    .clock_event_names
                    .iter()
                    .filter(|n| FAULTS.iter().any(|f| n.to_ascii_uppercase().contains(f)))
                    .collect();
                let (grade, why) = if faults.is_empty() {
                    (Grade::Pass, "no thermal or hardware slowdown (a power cap at full load is normal)")
                } else {
                    (Grade::Fail, "thermal or hardware slowdown under load (DCGM failure mask)")
                };
                push(
                    &mut out,
                    "clock-events",
                    Some(i),
                    grade,
                    "no slowdown".into(),
                    if s.clock_event_names.is_empty() { "none".into() } else { s.clock_event_names.join(", ") },
                    why,
                );
            }
        }
    }
    let overall = out.iter().map(|c| c.grade).max_by_key(|g| grade_rank(*g)).unwrap_or(Grade::Pass);
    let overall = if overall == Grade::Info { Grade::Pass } else { overall };
    Validation { build: build.name.clone(), checks: out, overall }
}

fn grade_rank(g: Grade) -> u8 {
    match g {
        Grade::Pass => 0,
        Grade::Info => 1,
        Grade::Warn => 2,
        Grade::Fail => 3,
    }
}

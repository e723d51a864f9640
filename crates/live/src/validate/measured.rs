//! Checks of what was measured: the probe's GEMMs, copies and sustained load against the
//! catalog (through [`crate::grading`], as the probe grades them), identical GPUs against
//! each other, and the links report's checks.

use super::{GpuResult, Observed, Pair, ValidationCheck, probe_device, push};
use crate::grading::{
    self, BANDWIDTH_WARN_BELOW, Grade, POWER_MIN_FRACTION, SIBLING_WARN_BELOW, TFLOPS_FAIL_BELOW, TFLOPS_WARN_BELOW,
};
use crate::links::{LinksReport, Section};
use crate::probe::DeviceReport;
use kraftwerk_core::estimate::power::gpu_limit_w;
use kraftwerk_core::rig::Build;
use kraftwerk_core::rig::links::{GpuLink, lane_gb_s};

/// The probe's checks for every matched GPU; returns what was measured per GPU.
pub(super) fn probe(
    out: &mut Vec<ValidationCheck>,
    build: &Build,
    obs: &Observed,
    pairs: &[Pair<'_>],
    links: &[GpuLink],
) -> Vec<GpuResult> {
    let mut results = Vec::new();
    for &(i, g, j) in pairs {
        let mut res = GpuResult {
            gpu: i,
            uuid: obs.gpus[j].uuid.clone(),
            name: obs.gpus[j].name.clone(),
            ..GpuResult::default()
        };
        if let Some(d) = probe_device(obs, j) {
            arithmetic(out, i, d);
            gemm(out, (i, g, j), d, &mut res);
            if let Some(bw) = &d.bandwidth {
                // Slot wiring unknown: held to the card's own link (bandwidth only warns).
                let link = links.iter().find(|x| x.gpu == i).cloned().unwrap_or_else(|| GpuLink::card_only(i, g));
                bandwidth(out, i, bw, &link);
            }
            if let Some(s) = &d.sustained {
                res.sustained_tflops = Some(s.tflops_mean);
                let limit = s.power_limit_w.unwrap_or_else(|| gpu_limit_w(g, build.gpus[i].power_limit_w));
                if let Some(pw) = &s.power_w {
                    let grade = if pw.median >= POWER_MIN_FRACTION * limit { Grade::Pass } else { Grade::Warn };
                    push(
                        out,
                        "load-power",
                        Some(i),
                        grade,
                        format!("at least {:.0} W under full load ({limit:.0} W limit)", POWER_MIN_FRACTION * limit),
                        format!("{:.0} W median, {:.0} W max (1 s average)", pw.median, pw.max),
                        if grade == Grade::Pass {
                            "the GPU reaches its planned power".to_owned()
                        } else {
                            format!(
                                "{:.0} W is under {:.0} % of the {limit:.0} W limit: throttling or a weak PSU rail",
                                pw.median,
                                POWER_MIN_FRACTION * 100.0
                            )
                        },
                    );
                }
            }
            if let (Some(before), Some(after)) = (d.memory_free_before_gib, d.memory_free_after_gib) {
                let grade = grading::grade_memory_released(before, after);
                push(
                    out,
                    "memory-released",
                    Some(i),
                    grade,
                    format!("free memory back within {:.2} GiB", grading::MEMORY_SLACK_GIB),
                    format!("{before:.2} GiB free before, {after:.2} GiB after"),
                    if grade == Grade::Pass {
                        "the probe's memory was released".to_owned()
                    } else {
                        format!(
                            "{:.2} GiB not released after the probe: another process or a leak holds it",
                            before - after
                        )
                    },
                );
            }
        }
        results.push(res);
    }
    siblings(out, pairs, &results);
    results
}

fn arithmetic(out: &mut Vec<ValidationCheck>, i: usize, d: &DeviceReport) {
    if d.faulty {
        push(
            out,
            "arithmetic",
            Some(i),
            Grade::Fail,
            "correct results".into(),
            "wrong result, NaN or run-to-run mismatch".into(),
            "the GPU computes wrongly: faulty",
        );
    } else if !d.gemm.is_empty() {
        push(
            out,
            "arithmetic",
            Some(i),
            Grade::Pass,
            "correct results".into(),
            format!("{} precisions checked", d.gemm.len()),
            "known-answer and run-to-run checks passed",
        );
    }
}

fn gemm(out: &mut Vec<ValidationCheck>, (i, g, _): Pair<'_>, d: &DeviceReport, res: &mut GpuResult) {
    let name = format!("{} {}", g.vendor, g.name);
    for r in &d.gemm {
        res.tflops.insert(r.precision.name().to_owned(), r.tflops.median);
        let got = r.tflops.median;
        let Some(t) = grading::grade_tflops(got, grading::catalog_peak_tflops(g, r.precision), &name, r.precision)
        else {
            continue;
        };
        push(
            out,
            &format!("gemm-{}", r.precision.name()),
            Some(i),
            t.grade,
            format!(
                "at least {:.0} TFLOP/s ({:.1} % of the {:.0} dense peak, {})",
                t.achievable_tflops * TFLOPS_WARN_BELOW,
                t.fraction.fraction * 100.0,
                t.peak_tflops,
                t.fraction.source
            ),
            format!("{got:.1} TFLOP/s median at n={} ({:.1} % of peak)", r.n, got / t.peak_tflops * 100.0),
            format!(
                "{:.2}x of the achievable {:.1} TFLOP/s (warn under {TFLOPS_WARN_BELOW}x, fail under {TFLOPS_FAIL_BELOW}x{})",
                t.ratio,
                t.achievable_tflops,
                if t.fraction.measured { "" } else { "; the fraction is assumed, so never fail" }
            ),
        );
    }
}

fn bandwidth(out: &mut Vec<ValidationCheck>, i: usize, bw: &crate::probe::HostBandwidth, link: &GpuLink) {
    let theory = lane_gb_s(link.pcie_gen) * f64::from(link.lanes);
    for (what, v) in [("h2d", &bw.pinned_h2d_gb_s), ("d2h", &bw.pinned_d2h_gb_s)] {
        let Some(v) = v else { continue };
        let grade = grading::grade_bandwidth(v.median, Some(theory));
        push(
            out,
            &format!("bandwidth-{what}"),
            Some(i),
            grade,
            format!(
                "at least {:.1} GB/s ({:.0} % of PCIe Gen{} x{} = {theory:.1})",
                BANDWIDTH_WARN_BELOW * theory,
                BANDWIDTH_WARN_BELOW * 100.0,
                link.pcie_gen,
                link.lanes
            ),
            format!("{:.1} GB/s pinned", v.median),
            if grade == Grade::Pass {
                "as the link allows".to_owned()
            } else {
                format!(
                    "{:.1} GB/s is {:.0} % of the link's rate: wrong NUMA node, a downtrained link or a shared switch",
                    v.median,
                    v.median / theory * 100.0
                )
            },
        );
    }
}

/// Identical GPUs (same catalog model) against each other: the sustained load's mean when
/// every one has it, else the BF16 GEMM median. A GPU under [`SIBLING_WARN_BELOW`] of the
/// others' median fails even when it is above the catalog fraction: identical GPUs in one
/// machine must measure alike.
fn siblings(out: &mut Vec<ValidationCheck>, pairs: &[Pair<'_>], res: &[GpuResult]) {
    let mut models: Vec<&str> = pairs.iter().map(|p| p.1.id.as_str()).collect();
    models.sort_unstable();
    models.dedup();
    for model in models {
        let group: Vec<&GpuResult> =
            res.iter().filter(|r| pairs.iter().any(|p| p.0 == r.gpu && p.1.id == model)).collect();
        let sustained: Option<Vec<f64>> = group.iter().map(|r| r.sustained_tflops).collect();
        let (what, values) = match sustained {
            Some(v) => ("sustained", v),
            None => match group.iter().map(|r| r.tflops.get("bf16").copied()).collect::<Option<Vec<f64>>>() {
                Some(v) => ("bf16 GEMM", v),
                None => continue,
            },
        };
        if values.len() < 2 {
            continue;
        }
        for (k, r) in group.iter().enumerate() {
            let others: Vec<f64> = values.iter().enumerate().filter(|(x, _)| *x != k).map(|(_, v)| *v).collect();
            let Some(median) = grading::median(&others) else { continue };
            let (ratio, slow) = grading::sibling_ratio(values[k], median);
            push(
                out,
                "gemm-siblings",
                Some(r.gpu),
                if slow { Grade::Fail } else { Grade::Pass },
                format!(
                    "within {:.0} % of the identical GPUs' median {median:.1} TFLOP/s",
                    (1.0 - SIBLING_WARN_BELOW) * 100.0
                ),
                format!("{:.1} TFLOP/s {what}", values[k]),
                format!(
                    "{:+.1} % against the other {} identical GPU(s){}",
                    (ratio - 1.0) * 100.0,
                    others.len(),
                    if slow {
                        ": this GPU is slower than its peers (cooling, power, clocks, a bad module)"
                    } else {
                        ""
                    }
                ),
            );
        }
    }
}

/// The links report's checks, as `links-<check>`; returns the all-reduce busbw at the largest
/// size when measured.
pub(super) fn links(out: &mut Vec<ValidationCheck>, l: &LinksReport) -> Option<f64> {
    for c in &l.checks {
        let gpu = c.gpus.first().copied();
        let gpus: Vec<String> = c.gpus.iter().map(|g| (g + 1).to_string()).collect();
        push(
            out,
            &format!("links-{}", c.check),
            gpu,
            c.grade,
            c.expected.map_or_else(|| "-".to_owned(), |e| format!("{e:.1}")),
            c.measured.map_or_else(|| "-".to_owned(), |m| format!("{m:.1}")),
            format!("GPU(s) {}: {}", gpus.join(", "), c.message),
        );
    }
    match &l.all_reduce {
        Section::Measured(t) => t.largest().map(|r| r.busbw_gb_s),
        Section::NotAvailable { .. } => None,
    }
}

//! Validating the real machine against its build: what was observed (the GPUs NVML sees, their
//! topology, NVML samples taken under load and at idle, the probe's and the links' reports)
//! against what the build and the catalog say it should be.
//!
//! The same [`Observed`] comes from the live machine (`kraftwerk validate BUILD`) or from a
//! recording (`kraftwerk validate BUILD --from FILE`, [`Observed::from_recording`]), and one pure
//! function, [`validate_observed`], grades it, so a recording grades exactly like the live run
//! that made it. Each check is graded pass / info / warn / fail with its numbers and the reason;
//! the thresholds are those of [`crate::grading`] (shared with the probe and the links).

mod hardware;
mod measured;

use super::grading::Grade;
use super::links::LinksReport;
use super::nvml::{GpuStatic, Snapshot};
use super::probe::{DeviceReport, ProbeReport, match_catalog_gpu};
use super::record::{RecordError, Recording};
use crate::nvml::topology::Topology;
use kraftwerk_catalog::{Catalog, Gpu};
use kraftwerk_core::rig::Build;
use kraftwerk_core::rig::links::{GpuLink, gpu_links};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub use super::grading::{BANDWIDTH_WARN_BELOW, POWER_MIN_FRACTION, TFLOPS_FAIL_BELOW, TFLOPS_WARN_BELOW};

/// Name of the recording section holding the probe report ([`ProbeReport`] JSON).
pub(crate) const EXTRA_PROBE: &str = "probe";
/// Name of the recording section holding the links report ([`LinksReport`] JSON).
pub(crate) const EXTRA_LINKS: &str = "links";
/// Name of the recording section holding why the probe was skipped on purpose (a JSON string,
/// `--no-probe`), so a replay grades the skip as the live run did.
pub(crate) const EXTRA_PROBE_SKIPPED: &str = "probe_skipped";
/// Name of the recording section holding why NVML could not be used (a JSON string).
pub(crate) const EXTRA_NVML: &str = "nvml";

/// One graded check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValidationCheck {
    /// What is checked: `nvml`, `gpu-count`, `gpu-uuid`, `gpu-model`, `pcie-link-live`,
    /// `nvlink-active`, `power-limit`, `memory`, `ecc`, `retired-pages`, `xid`, `arithmetic`,
    /// `gemm-<precision>`, `gemm-siblings`, `bandwidth-h2d`, `bandwidth-d2h`, `load-power`,
    /// `clock-events`, `power-cap`, `memory-released`, `links-<check>`.
    pub check: String,
    /// Which GPU (build index, 0-based), if one.
    pub gpu: Option<usize>,
    /// Grade.
    pub grade: Grade,
    /// What the build and catalog expect.
    pub expected: String,
    /// What was measured.
    pub measured: String,
    /// Why this grade, with the numbers.
    pub reason: String,
}

/// What was measured on one GPU of the build, for fleet views.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct GpuResult {
    /// Build index (0-based).
    pub gpu: usize,
    /// The live GPU's UUID.
    pub uuid: Option<String>,
    /// The live GPU's name.
    pub name: Option<String>,
    /// GEMM median per precision, TFLOP/s (probe).
    #[serde(default)]
    pub tflops: BTreeMap<String, f64>,
    /// Mean TFLOP/s of the sustained load (probe), with its precision.
    #[serde(default)]
    pub sustained_tflops: Option<f64>,
}

/// The result of validating a machine against a build.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Validation {
    /// Build name.
    pub build: String,
    /// What was validated: `live` or `recording FILE`.
    #[serde(default)]
    pub source: String,
    /// Host name of the machine, when known (the node in a fleet).
    #[serde(default)]
    pub node: Option<String>,
    /// Why NVML could not be used (no driver, …); `None` when it worked.
    #[serde(default)]
    pub nvml: Option<String>,
    /// Checks in order.
    pub checks: Vec<ValidationCheck>,
    /// Per build GPU: what was measured.
    #[serde(default)]
    pub gpus: Vec<GpuResult>,
    /// All-reduce bus bandwidth at the largest size, GB/s (links report), when measured.
    #[serde(default)]
    pub busbw_gb_s: Option<f64>,
    /// Worst grade (info counts as pass).
    pub overall: Grade,
}

/// Everything observed on a machine, live or recorded.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Observed {
    /// `live` or `recording FILE`.
    pub source: String,
    /// Host name, when known.
    pub node: Option<String>,
    /// Why NVML could not be used; `None` when it worked.
    pub nvml: Option<String>,
    /// Static facts per GPU, NVML order.
    pub gpus: Vec<GpuStatic>,
    /// Connection of every pair; `None` when unknown.
    pub topology: Option<Topology>,
    /// NVML readings, oldest first (under load and idle).
    pub snapshots: Vec<Snapshot>,
    /// The probe's report.
    pub probe: Option<ProbeReport>,
    /// Why the probe was skipped on purpose (`--no-probe`); `None` when it was not. Without a
    /// probe report and without this reason, the probe's checks are "not measured".
    pub probe_skipped: Option<String>,
    /// The links' report.
    pub links: Option<LinksReport>,
}

impl Observed {
    /// What a recording holds: its GPUs, topology, snapshots and its `probe`, `links` and
    /// `nvml` sections. `file` names the recording in errors.
    ///
    /// # Errors
    /// [`RecordError::Parse`] when a section is not a valid report.
    pub fn from_recording(rec: &Recording, file: &str) -> Result<Self, RecordError> {
        fn section<T: serde::de::DeserializeOwned>(
            rec: &Recording,
            file: &str,
            name: &str,
        ) -> Result<Option<T>, RecordError> {
            rec.extra
                .get(name)
                .filter(|v| !v.is_null())
                .map(|v| {
                    T::deserialize(v).map_err(|e| RecordError::Parse {
                        file: file.to_owned(),
                        line: 0,
                        column: 0,
                        message: format!("section `{name}`: {e}"),
                    })
                })
                .transpose()
        }
        Ok(Observed {
            source: format!("recording {file}"),
            node: rec.machine.hostname.clone(),
            nvml: section::<String>(rec, file, EXTRA_NVML)?,
            gpus: rec.gpus.clone(),
            topology: (!rec.topology.pairs.is_empty()).then(|| rec.topology.clone()),
            snapshots: rec.snapshots.clone(),
            probe: section(rec, file, EXTRA_PROBE)?,
            probe_skipped: section::<String>(rec, file, EXTRA_PROBE_SKIPPED)?,
            links: section(rec, file, EXTRA_LINKS)?,
        })
    }

    /// Stores the reports and the NVML status in `rec`'s sections (for `validate --record`).
    ///
    /// # Errors
    /// A report that cannot be encoded as JSON (a non-finite number).
    pub fn store_in(&self, rec: &mut Recording) -> Result<(), RecordError> {
        let enc = |e: serde_json::Error| RecordError::Encode(e.to_string());
        if let Some(p) = &self.probe {
            rec.extra.insert(EXTRA_PROBE.to_owned(), serde_json::to_value(p).map_err(enc)?);
        }
        if let Some(l) = &self.links {
            rec.extra.insert(EXTRA_LINKS.to_owned(), serde_json::to_value(l).map_err(enc)?);
        }
        if let Some(n) = &self.nvml {
            rec.extra.insert(EXTRA_NVML.to_owned(), serde_json::Value::String(n.clone()));
        }
        if let Some(why) = &self.probe_skipped {
            rec.extra.insert(EXTRA_PROBE_SKIPPED.to_owned(), serde_json::Value::String(why.clone()));
        }
        Ok(())
    }
}

/// Adds a check to `out`.
pub(crate) fn push(
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

/// A build GPU matched to a live one: (build index, catalog GPU, position in `Observed::gpus`).
pub(crate) type Pair<'c> = (usize, &'c Gpu, usize);

/// Validates the live GPUs (`live`, in NVML order) and an optional probe report against the
/// build: [`validate_observed`] with nothing else observed.
pub fn validate(build: &Build, catalog: &Catalog, live: &[GpuStatic], probe: Option<&ProbeReport>) -> Validation {
    let obs = Observed { source: "live".to_owned(), gpus: live.to_vec(), probe: probe.cloned(), ..Observed::default() };
    validate_observed(build, catalog, &obs)
}

/// Validates what was observed against the build. Live GPUs are matched to the build's GPUs
/// by model, in order; probe devices to live GPUs by UUID.
pub fn validate_observed(build: &Build, catalog: &Catalog, obs: &Observed) -> Validation {
    let r = build.resolve(catalog);
    let links = gpu_links(&r);
    let mut out = Vec::new();
    let planned: Vec<(usize, &Gpu)> = r.gpus.iter().enumerate().filter_map(|(i, g)| g.map(|g| (i, g))).collect();
    if let Some(why) = &obs.nvml {
        push(
            &mut out,
            "nvml",
            None,
            Grade::Fail,
            "NVML answers (NVIDIA driver loaded)".into(),
            why.clone(),
            format!(
                "NVML could not be used: {why}; no GPU could be read, so nothing was validated (install or load the NVIDIA driver)"
            ),
        );
    }
    hardware::count(&mut out, &planned, obs);
    let pairs = match_gpus(&mut out, catalog, &planned, &obs.gpus);
    for &(i, g, j) in &pairs {
        // A card whose slot wiring is unknown is held to its own link, and a shortfall only
        // warns: the board may wire that slot so.
        let link = links.iter().find(|x| x.gpu == i).cloned();
        let wiring_known = link.is_some();
        let link = link.unwrap_or_else(|| GpuLink::card_only(i, g));
        hardware::pcie_link(&mut out, obs, (i, g, j), &link, wiring_known);
        hardware::power_limit(&mut out, build, obs, (i, g, j));
        hardware::memory_and_health(&mut out, obs, (i, g, j));
        hardware::clock_events(&mut out, obs, (i, g, j));
    }
    hardware::nvlink(&mut out, build, catalog, obs, &pairs);
    probe_ran(&mut out, obs, &pairs);
    let mut gpus = Vec::new();
    if obs.probe.is_some() {
        gpus = measured::probe(&mut out, build, obs, &pairs, &links);
    }
    let busbw_gb_s = obs.links.as_ref().and_then(|l| measured::links(&mut out, l));
    if gpus.is_empty() {
        gpus = pairs
            .iter()
            .map(|&(i, _, j)| GpuResult {
                gpu: i,
                uuid: obs.gpus[j].uuid.clone(),
                name: obs.gpus[j].name.clone(),
                ..GpuResult::default()
            })
            .collect();
    }
    let overall = Grade::worst(out.iter().map(|c| c.grade));
    Validation {
        build: build.name.clone(),
        source: obs.source.clone(),
        node: obs.node.clone(),
        nvml: obs.nvml.clone(),
        checks: out,
        gpus,
        busbw_gb_s,
        overall,
    }
}

/// Whether the probe ran: a probe that was asked for and could not run (CUDA unusable, no
/// backend) fails with the probe's own message and fix; no probe data where GPUs were seen is
/// "not measured" (the GEMM rates, host bandwidth and the link under load were not measured),
/// unless the probe was skipped on purpose, which is said.
fn probe_ran(out: &mut Vec<ValidationCheck>, obs: &Observed, pairs: &[Pair<'_>]) {
    if obs.gpus.is_empty() {
        return;
    }
    let expected = "the GEMM probe runs on every GPU".to_owned();
    match (&obs.probe, &obs.probe_skipped) {
        (Some(p), _) if !p.errors.is_empty() => {
            push(out, "probe", None, Grade::Fail, expected, "the probe could not run".to_owned(), p.errors.join("; "));
        }
        (Some(p), _) if p.cancelled => push(
            out,
            "probe",
            None,
            Grade::NotMeasured,
            expected,
            "cancelled".to_owned(),
            "not measured: the probe was cancelled (Ctrl-C or its time limit), so its results are incomplete"
                .to_owned(),
        ),
        (Some(p), _) => {
            for &(i, _, j) in pairs {
                let gpu = format!("GPU {}", i + 1);
                match probe_device(obs, j) {
                    None => push(
                        out,
                        "probe",
                        Some(i),
                        Grade::NotMeasured,
                        expected.clone(),
                        format!("{} device report(s) for {} matched GPU(s)", p.devices.len(), pairs.len()),
                        format!("not measured: the probe report has no device for {gpu}"),
                    ),
                    Some(d) if !d.errors.is_empty() => push(
                        out,
                        "probe",
                        Some(i),
                        Grade::Fail,
                        expected.clone(),
                        "device error".to_owned(),
                        format!("the probe failed on {gpu}: {}", d.errors.join("; ")),
                    ),
                    Some(d) if d.gemm.is_empty() && d.sustained.is_none() => push(
                        out,
                        "probe",
                        Some(i),
                        Grade::NotMeasured,
                        expected.clone(),
                        "nothing measured".to_owned(),
                        format!("not measured: the probe report for {gpu} holds no GEMM and no sustained load"),
                    ),
                    Some(_) => {}
                }
            }
        }
        (None, Some(why)) => push(
            out,
            "probe",
            None,
            Grade::Info,
            expected,
            "skipped".to_owned(),
            format!("the probe was skipped on purpose ({why}): GEMM rates, host bandwidth and load were not measured"),
        ),
        (None, None) => push(
            out,
            "probe",
            None,
            Grade::NotMeasured,
            expected,
            "no probe data".to_owned(),
            format!(
                "not measured: no probe report ({}), so the GEMM rates, host bandwidth and the link under load were not measured (run the probe on the machine)",
                obs.source
            ),
        ),
    }
}

/// The probe's report of the live GPU at position `j`: matched by UUID, or by position when
/// neither side knows UUIDs.
pub(crate) fn probe_device(obs: &Observed, j: usize) -> Option<&DeviceReport> {
    let p = obs.probe.as_ref()?;
    let uuid = obs.gpus.get(j)?.uuid.as_deref();
    p.devices
        .iter()
        .find(|d| d.uuid.is_some() && d.uuid.as_deref() == uuid)
        .or_else(|| if uuid.is_none() && p.devices.iter().all(|d| d.uuid.is_none()) { p.devices.get(j) } else { None })
}

/// Matches live GPUs to planned ones by catalog model, in order, and grades each match.
fn match_gpus<'c>(
    out: &mut Vec<ValidationCheck>,
    catalog: &Catalog,
    planned: &[(usize, &'c Gpu)],
    live: &[GpuStatic],
) -> Vec<Pair<'c>> {
    let mut taken = vec![false; live.len()];
    let mut pairs = Vec::new();
    for &(i, g) in planned {
        let is_model = |l: &GpuStatic| {
            l.name.as_deref().is_some_and(|name| match match_catalog_gpu(catalog, name, l.power_limit_max_w) {
                Ok(Some(m)) => m.id == g.id,
                Err(ids) => ids.contains(&g.id),
                Ok(None) => false,
            })
        };
        if let Some(j) = live.iter().enumerate().position(|(j, l)| !taken[j] && is_model(l)) {
            taken[j] = true;
            pairs.push((i, g, j));
            push(out, "gpu-model", Some(i), Grade::Pass, g.name.clone(), live[j].label(), "model matches");
        } else {
            let others: Vec<String> =
                live.iter().enumerate().filter(|(j, _)| !taken[*j]).map(|(_, l)| l.label()).collect();
            let measured = if live.is_empty() {
                "no GPU found (nothing measured)".to_owned()
            } else if others.is_empty() {
                "none left".to_owned()
            } else {
                others.join(", ")
            };
            push(
                out,
                "gpu-model",
                Some(i),
                Grade::Fail,
                g.name.clone(),
                measured,
                if live.is_empty() {
                    format!("no GPU was found on this machine, so none matches the planned {}", g.name)
                } else {
                    format!("no installed GPU of this model ({}) is left to match", g.name)
                },
            );
        }
    }
    pairs
}

//! The user's own measurement applied to a build's estimates: one comparison
//! of a measurement file with the estimate for the same tests on a build ([`calibrate`]), and
//! one scaling of that build's other estimates by the measured/estimated ratio
//! ([`Calibration::scale_decode`], [`Calibration::scale_prefill`]). `kraftwerk fit --measured`
//! and `kraftwerk plan --measured` both use these, so the two cannot scale differently.
//!
//! The files are read by [`super::llm::measured`] (llama-bench JSON/JSONL/CSV, `vllm bench
//! serve --save-result` JSON). A file that names GPUs is checked against the build's GPU chips
//! and refused with both names when they differ. A `vllm bench serve` file names none unless
//! the run stored one with `--metadata gpu=...`: such a file calibrates nothing until the user
//! names the GPU it was measured on ([`MeasuredFile::confirmed_gpu`], `--measured-gpu`), since a
//! file from another machine would otherwise silently "correct" this one.

use super::fit::{self, FitOptions};
use super::llm::measured::{
    BenchRow, Comparison, MeasuredError, VllmBench, check_gpu_names, correction_factors, is_vllm_bench, names_model,
    parse_llama_bench, parse_vllm_bench,
};

use crate::rig::Build;
use crate::workload::{Precision, Runtime};
use kraftwerk_catalog::{Catalog, LlmModel};
use serde::Serialize;

/// What a measurement file holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Measurement {
    /// llama-bench records (one per test).
    LlamaBench(Vec<BenchRow>),
    /// One `vllm bench serve` result.
    VllmBench(VllmBench),
}

impl Measurement {
    /// Reads a measurement file's text: a `vllm bench serve` result when it has that tool's
    /// keys ([`is_vllm_bench`]), else llama-bench output.
    ///
    /// # Errors
    /// [`MeasuredError`] with line and column, as the two readers report them.
    pub fn parse(text: &str) -> Result<Self, MeasuredError> {
        if is_vllm_bench(text) {
            parse_vllm_bench(text).map(Measurement::VllmBench)
        } else {
            parse_llama_bench(text).map(Measurement::LlamaBench)
        }
    }

    /// The tool that wrote it: `llama-bench` or `vllm bench serve`.
    pub fn source(&self) -> &'static str {
        match self {
            Measurement::LlamaBench(_) => "llama-bench",
            Measurement::VllmBench(_) => "vllm bench serve",
        }
    }

    /// The runtime the measurement ran (llama-bench is llama.cpp's own benchmark).
    pub fn runtime(&self) -> Runtime {
        match self {
            Measurement::LlamaBench(_) => Runtime::LlamaCpp,
            Measurement::VllmBench(_) => Runtime::Vllm,
        }
    }

    /// The GPU names the file gives (llama-bench's `gpu_info`, a vLLM result's `gpu`
    /// metadata), deduplicated; empty when it names none.
    pub(crate) fn gpu_names(&self) -> Vec<String> {
        let mut names = match self {
            Measurement::LlamaBench(rows) => rows.iter().flat_map(BenchRow::gpus).collect(),
            Measurement::VllmBench(b) => b.gpus(),
        };
        names.sort();
        names.dedup();
        names
    }

    /// How many GPUs the run used, when the file says: the devices of llama-bench's first
    /// `gpu_info`; the `4x` of a vLLM result's `gpu` metadata (`4xNVIDIA_L40S`). `None` =
    /// not said.
    pub fn gpu_count(&self) -> Option<u32> {
        match self {
            Measurement::LlamaBench(rows) => {
                rows.first().map(|r| u32::try_from(r.gpus().len()).unwrap_or(u32::MAX)).filter(|&n| n > 0)
            }
            Measurement::VllmBench(b) => b.gpu_info.as_deref().and_then(count_prefix).map(|(n, _)| n),
        }
    }

    /// The weight precision llama-bench's `model_type` names (`qwen2 7B Q4_K - Medium` is
    /// `q4_k_m`), when Kraftwerk knows the name; `None` for a vLLM result (it names none) or
    /// an unknown quantization.
    pub fn precision(&self) -> Option<Precision> {
        let Measurement::LlamaBench(rows) = self else { return None };
        rows.first().and_then(|r| quant_of(&r.model_type))
    }

    /// The quantization text llama-bench wrote (`Q4_K - Medium`), for messages.
    fn quant_text(&self) -> Option<String> {
        let Measurement::LlamaBench(rows) = self else { return None };
        rows.first().map(|r| quant_tail(&r.model_type))
    }
}

/// `4x` / `4X` at the start of a GPU text: the count and the rest.
fn count_prefix(text: &str) -> Option<(u32, &str)> {
    let text = text.trim();
    let digits = text.chars().take_while(char::is_ascii_digit).count();
    let rest = text.get(digits..)?;
    let rest = rest.strip_prefix('x').or_else(|| rest.strip_prefix('X'))?;
    let n: u32 = text.get(..digits)?.parse().ok()?;
    (n > 0).then_some((n, rest))
}

/// The part of llama.cpp's model type after the size (`qwen2 7B Q4_K - Medium` gives
/// `Q4_K - Medium`): llama.cpp writes `<arch> <size> <ftype name>` (`llama_model::desc`,
/// src/llama-model.cpp). The whole text when no size word is found.
fn quant_tail(model_type: &str) -> String {
    let words: Vec<&str> = model_type.split_whitespace().collect();
    let is_size = |w: &str| {
        w.strip_suffix(['B', 'M'])
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit() || c == '.' || c == 'x'))
    };
    match words.iter().position(|w| is_size(w)) {
        Some(i) if i + 1 < words.len() => words[i + 1..].join(" "),
        _ => words.join(" "),
    }
}

/// llama.cpp's ftype name (`Q4_K - Medium`, `Q8_0`, `BF16`, `all F32`) as a [`Precision`].
fn quant_of(model_type: &str) -> Option<Precision> {
    let tail = quant_tail(model_type).to_ascii_lowercase();
    let name = tail
        .replace(" - medium", "_m")
        .replace(" - small", "_s")
        .replace(" - large", "_l")
        .replace("all f32", "fp32")
        .replace(' ', "");
    name.parse().ok()
}

/// A measurement the user gives, with the GPU they say it was measured on.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasuredFile {
    /// The file as the user named it (for messages).
    pub file: String,
    /// What it holds.
    pub measurement: Measurement,
    /// `--measured-gpu`: the catalog id of the GPU chip (or card) the user says the file was
    /// measured on, optionally with a count (`4xnvidia-l40s`). Needed for a file that names no
    /// GPU; checked against the file's own names where it gives some.
    pub confirmed_gpu: Option<String>,
}

impl MeasuredFile {
    /// Reads `path` ([`Measurement::parse`]).
    ///
    /// # Errors
    /// `path: what` for an unreadable file, `path: line L, column C: what` for bad content.
    pub fn read(path: &std::path::Path, confirmed_gpu: Option<String>) -> Result<Self, String> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| format!("{file}: {e}"))?;
        let measurement = Measurement::parse(&text).map_err(|e| format!("{file}: {e}"))?;
        Ok(MeasuredFile { file, measurement, confirmed_gpu })
    }

    /// The chip the measurement ran on as `vendor name` (`NVIDIA GeForce RTX 4080`) and the
    /// GPU count where known: from `--measured-gpu` when given (it must then agree with the
    /// file's own names), else from the file. `Ok(None)` when neither names a GPU.
    ///
    /// # Errors
    /// An unknown `--measured-gpu` id; a file naming several chips; a `--measured-gpu` that
    /// disagrees with the file's chip or GPU count (both named).
    pub(crate) fn measured_chip(&self, catalog: &Catalog) -> Result<Option<(String, Option<u32>)>, String> {
        let theirs = self.measurement.gpu_names();
        if theirs.len() > 1 {
            return Err(format!(
                "{}: measured on several GPU models ({}): one chip's measurement calibrates that chip only",
                self.file,
                theirs.join(", ")
            ));
        }
        let Some(id) = &self.confirmed_gpu else {
            return Ok(theirs.into_iter().next().map(|n| (n, self.measurement.gpu_count())));
        };
        let (count, id) = count_prefix(id).map_or((None, id.as_str()), |(n, rest)| (Some(n), rest));
        let chip = chip_name(catalog, id.trim()).ok_or_else(|| {
            let near = kraftwerk_catalog::search::suggest_ids(
                catalog,
                &[kraftwerk_catalog::PartKind::Gpu, kraftwerk_catalog::PartKind::GpuCard],
                id.trim(),
                3,
            );
            let hint = if near.is_empty() { String::new() } else { format!("; did you mean: {}?", near.join(", ")) };
            format!("--measured-gpu `{id}` is not a GPU or card id of the catalog{hint}")
        })?;
        check_gpu_names(&theirs, std::slice::from_ref(&chip))
            .map_err(|e| format!("{}: {e} (the file disagrees with --measured-gpu `{id}`)", self.file))?;
        let file_count = self.measurement.gpu_count();
        if let (Some(c), Some(f)) = (count, file_count)
            && c != f
        {
            return Err(format!("{}: the file ran on {f} GPU{} but --measured-gpu says {c}", self.file, plural(f)));
        }
        Ok(Some((chip, count.or(file_count))))
    }
}

/// The chip of a catalog GPU or partner card id as `vendor name` (`NVIDIA GeForce RTX 4080`:
/// a card is named by its chip, as llama-bench and NVML name the device). `None` = not in the
/// catalog.
pub(crate) fn chip_name(catalog: &Catalog, id: &str) -> Option<String> {
    let chip = catalog.gpu(id).or_else(|| catalog.gpu_card(id).and_then(|c| catalog.gpu(&c.chip)))?;
    Some(format!("{} {}", chip.vendor, chip.name))
}

/// The chips of a build's GPUs ([`chip_name`]), one per GPU (unknown ids left out).
pub(crate) fn build_chip_names(build: &Build, catalog: &Catalog) -> Vec<String> {
    build.gpus.iter().filter_map(|g| chip_name(catalog, &g.gpu)).collect()
}

/// A measurement compared with a build's estimate: the ratios that scale the build's other
/// estimates.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Calibration {
    /// The file read.
    pub file: String,
    /// `llama-bench` or `vllm bench serve`.
    pub source: &'static str,
    /// Where it was measured as the file says (llama-bench's `gpu_info`, a vLLM result's `gpu`
    /// metadata); `None` when it names no GPU.
    pub gpu_info: Option<String>,
    /// The GPU the user confirmed (`--measured-gpu`), as given.
    pub confirmed_gpu: Option<String>,
    /// Estimate vs measured per test.
    pub comparisons: Vec<Comparison>,
    /// Measured ÷ estimated decode (geometric mean over the generation tests); `None` when no
    /// generation test has a known estimate, or nothing may be corrected ([`Self::gpus_unchecked`]).
    pub decode_factor: Option<f64>,
    /// Measured ÷ estimated prefill, as `decode_factor`.
    pub prefill_factor: Option<f64>,
    /// The `vllm bench serve` figures read, for such a file.
    pub vllm_bench: Option<VllmBench>,
    /// Why nothing was corrected although the comparison is shown: the file names no GPU and
    /// the user confirmed none. `None` when the GPUs were checked.
    pub gpus_unchecked: Option<String>,
}

impl Calibration {
    /// A decode rate of the calibrated build (any context, batch or user count), scaled by
    /// [`Self::decode_factor`]: tokens/s. `None` when there is no factor.
    pub(crate) fn scale_decode(&self, tok_s: f64) -> Option<f64> {
        self.decode_factor.map(|k| tok_s * k)
    }

    /// A prefill rate of the calibrated build scaled by [`Self::prefill_factor`], tokens/s.
    pub(crate) fn scale_prefill(&self, tok_s: f64) -> Option<f64> {
        self.prefill_factor.map(|k| tok_s * k)
    }

    /// `measured X tok/s vs estimate Y, ratio R` for each test with a known estimate, joined
    /// by `; ` (`tg128 measured 119.9 tok/s vs estimate 101.2, ratio 1.18`).
    pub fn summary(&self) -> String {
        let parts: Vec<String> = self
            .comparisons
            .iter()
            .filter_map(|c| {
                let (e, r) = (c.estimated_tok_s?, c.ratio()?);
                Some(format!("{} measured {:.1} tok/s vs estimate {e:.1}, ratio {r:.2}", c.test, c.measured_tok_s))
            })
            .collect();
        if parts.is_empty() { "no test with a known estimate".into() } else { parts.join("; ") }
    }
}

/// Compares the measurement with the estimate for the same tests on `build` (the model,
/// precision and options of `opts`; each test at its own context and batch, on the
/// measurement's runtime) and returns the ratios that scale the build's other estimates.
///
/// A file that names GPUs must name the build's chips ([`build_chip_names`]); a file that
/// names none calibrates only with [`MeasuredFile::confirmed_gpu`] naming one of them, else the
/// comparison comes back without factors and [`Calibration::gpus_unchecked`] says why. The
/// measured model must be the fit's (llama-bench's parameter count within 3 %, vLLM's
/// `model_id` naming the preset).
///
/// # Errors
/// Other GPUs (both named), another model (both named), an unknown `--measured-gpu` id, the
/// build's model unknown.
pub fn calibrate(m: &MeasuredFile, build: &Build, catalog: &Catalog, opts: &FitOptions) -> Result<Calibration, String> {
    let input = fit::input_for(build, catalog, opts).map_err(|e| e.to_string())?;
    let model = &input.model;
    check_model(&m.measurement, model)?;
    let ours = build_chip_names(build, catalog);
    // Every GPU the file names must be one of the build's (a llama-bench run over two chips
    // calibrates a build of those two); a confirmed GPU must be one of them too.
    let theirs = m.measurement.gpu_names();
    if !theirs.is_empty() {
        check_gpu_names(&theirs, &ours)?;
    }
    let confirmed = match &m.confirmed_gpu {
        Some(_) => m.measured_chip(catalog)?.map(|(name, _)| name),
        None => None,
    };
    if let Some(name) = &confirmed {
        check_gpu_names(std::slice::from_ref(name), &ours)?;
    }
    let mut cal = Calibration {
        file: m.file.clone(),
        source: m.measurement.source(),
        gpu_info: None,
        confirmed_gpu: m.confirmed_gpu.clone(),
        comparisons: Vec::new(),
        decode_factor: None,
        prefill_factor: None,
        vllm_bench: None,
        gpus_unchecked: None,
    };
    match &m.measurement {
        Measurement::VllmBench(b) => {
            let concurrency = b.mean_concurrency().round().max(1.0);
            let context = (b.mean_input_tokens() + b.mean_output_tokens()).round().max(1.0);
            let o = FitOptions {
                context: Some(context as u32),
                batch: Some(concurrency as u32),
                runtime: Some(Runtime::Vllm.into()),
                ..opts.clone()
            };
            let est = fit::for_build(build, catalog, &o)
                .ok()
                .and_then(|f| f.fit.speed)
                .map(|s| s.decode_per_sequence_tokens_per_s);
            cal.comparisons.push(Comparison {
                test: format!("decode/seq @{concurrency:.0} seqs, ctx {context:.0}"),
                generation: true,
                measured_tok_s: b.decode_per_sequence_tok_s(),
                estimated_tok_s: est,
            });
            cal.gpu_info.clone_from(&b.gpu_info);
            cal.vllm_bench = Some(b.clone());
        }
        Measurement::LlamaBench(rows) => {
            for r in rows {
                let o = FitOptions {
                    context: Some(r.context_tokens().max(1)),
                    batch: Some(1),
                    runtime: Some(Runtime::LlamaCpp.into()),
                    ..opts.clone()
                };
                let est = fit::for_build(build, catalog, &o).ok().and_then(|f| f.fit.speed).and_then(|s| {
                    if r.is_generation() { Some(s.decode_batch1_tokens_per_s) } else { s.prefill_tokens_per_s }
                });
                cal.comparisons.push(Comparison {
                    test: r.test_name(),
                    generation: r.is_generation(),
                    measured_tok_s: r.avg_ts,
                    estimated_tok_s: est,
                });
            }
            cal.gpu_info = rows.first().map(|r| r.gpu_info.clone());
        }
    }
    if theirs.is_empty() && confirmed.is_none() {
        cal.gpus_unchecked = Some(format!(
            "the file names no GPU ({} writes none unless run with --metadata gpu=...), so whether it was measured \
             on this build's GPUs could not be checked: nothing is corrected (a file from another machine would \
             correct this one wrongly); give --measured-gpu <GPU id> if it was measured on {}",
            m.measurement.source(),
            ours.first().map_or("this build's GPUs", String::as_str)
        ));
        return Ok(cal);
    }
    let (decode, prefill) = correction_factors(&cal.comparisons);
    cal.decode_factor = decode;
    cal.prefill_factor = prefill;
    Ok(cal)
}

/// Checks that the measurement ran `model`: llama-bench's `model_n_params` within 3 % of the
/// model's parameters, a vLLM result's `model_id` naming it ([`names_model`]).
///
/// # Errors
/// Both models named, with the line of the record.
pub(crate) fn check_model(m: &Measurement, model: &LlmModel) -> Result<(), String> {
    match m {
        Measurement::VllmBench(b) => {
            if !names_model(&b.model_id, &model.id, &model.name) {
                return Err(format!(
                    "line 1: measured `{}`, but the fit is for {} ({}): give --model for the measured model",
                    b.model_id, model.id, model.name
                ));
            }
        }
        Measurement::LlamaBench(rows) => {
            for r in rows {
                if let Some(n) = r.model_n_params
                    && ((n as f64 / 1e9) / model.params_b - 1.0).abs() > 0.03
                {
                    return Err(format!(
                        "line {}: measured `{}` ({:.2} B parameters), but the fit is for {} ({:.2} B): give --model for the measured model",
                        r.line,
                        r.model_type,
                        n as f64 / 1e9,
                        model.id,
                        model.params_b
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Why a build's estimate is not calibrated by a measurement although its GPUs may be the
/// measured chip: another count, runtime or precision than the measurement's. `None` when
/// chip, count, runtime family and precision all match (context, batch and user count differ
/// freely: the ratio scales them, as `fit --measured` scales "the machine's other estimates").
pub fn not_covered(
    m: &MeasuredFile,
    catalog: &Catalog,
    build: &Build,
    runtime: Runtime,
    precision: Precision,
) -> Result<Option<String>, String> {
    let Some((chip, count)) = m.measured_chip(catalog)? else {
        return Ok(Some("the file names no GPU and --measured-gpu names none".into()));
    };
    let ours = build_chip_names(build, catalog);
    if ours.is_empty() || check_gpu_names(std::slice::from_ref(&chip), &ours).is_err() {
        let mut mine = ours.clone();
        mine.dedup();
        return Ok(Some(format!("measured on {chip}, this build has {}", mine.join(", "))));
    }
    let n = u32::try_from(ours.len()).unwrap_or(u32::MAX);
    match count {
        None => {
            return Ok(Some(format!(
                "the file does not say how many {chip} it ran on (give --measured-gpu Nx<GPU id>)"
            )));
        }
        Some(c) if c != n => return Ok(Some(format!("measured on {c} GPU{}, this build has {n}", plural(c)))),
        Some(_) => {}
    }
    let measured_rt = m.measurement.runtime();
    if runtime != measured_rt {
        return Ok(Some(format!("measured with {measured_rt}, this build runs {runtime}")));
    }
    if let Measurement::LlamaBench(_) = m.measurement {
        match m.measurement.precision() {
            Some(p) if p == precision => {}
            Some(p) => return Ok(Some(format!("measured at {p}, this build runs {precision}"))),
            None => {
                return Ok(Some(format!(
                    "the file's quantization `{}` is not one Kraftwerk reads",
                    m.measurement.quant_text().unwrap_or_default()
                )));
            }
        }
    }
    Ok(None)
}

use crate::fmt::plural;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llama_cpp_ftype_names_read_as_precisions() {
        assert_eq!(quant_tail("qwen2 7B Q4_K - Medium"), "Q4_K - Medium");
        assert_eq!(quant_of("qwen2 7B Q4_K - Medium"), Some(Precision::Q4_K_M));
        assert_eq!(quant_of("llama 8B Q8_0"), Some(Precision::Q8_0));
        assert_eq!(quant_of("llama 70B IQ9_ZZ"), None);
        assert_eq!(count_prefix("4xNVIDIA_L40S"), Some((4, "NVIDIA_L40S")));
        assert_eq!(count_prefix("nvidia-l40s"), None);
    }
}

//! The user's own measurement: llama-bench output read as written, compared
//! with the estimate for the same test, and the ratio used to correct the machine's other
//! estimates.
//!
//! llama-bench (github.com/ggml-org/llama.cpp, tools/llama-bench) writes one record per test:
//! `-o json` an array of objects, `-o jsonl` one object per line, `-o csv` a header row then one
//! quoted row per test. The fields read here are the same in all three: `gpu_info` (the devices,
//! comma-separated), `model_type`, `model_n_params`, `n_prompt`, `n_gen`, `n_depth` and
//! `avg_ts` (tokens per second). A prompt-processing test (`pp512`) has `n_gen` 0; a
//! generation test (`tg128`) has `n_prompt` 0.

use serde::{Deserialize, Serialize};
use std::fmt;

/// One llama-bench test result.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchRow {
    /// `gpu_info`: the GPUs llama-bench ran on, as the backend names them
    /// (`NVIDIA GeForce RTX 4080`), comma-separated for several.
    pub gpu_info: String,
    /// `model_type` (`qwen2 7B Q4_K - Medium`).
    pub model_type: String,
    /// `model_n_params`, parameters.
    pub model_n_params: Option<u64>,
    /// Prompt tokens processed (0 for a generation test).
    pub n_prompt: u32,
    /// Tokens generated (0 for a prompt test).
    pub n_gen: u32,
    /// Tokens already in the KV cache before the test (`-d`; 0 when absent, as in older builds).
    pub n_depth: u32,
    /// Average tokens per second.
    pub avg_ts: f64,
    /// Line of the record in the file (1-based).
    pub line: usize,
}

impl BenchRow {
    /// Whether this is a generation (decode) test; else prompt processing (prefill).
    pub fn is_generation(&self) -> bool {
        self.n_gen > 0 && self.n_prompt == 0
    }

    /// llama-bench's own test name: `pp512`, `tg128`, with ` @ d4096` for a depth.
    pub fn test_name(&self) -> String {
        let base = if self.is_generation() {
            format!("tg{}", self.n_gen)
        } else if self.n_gen == 0 {
            format!("pp{}", self.n_prompt)
        } else {
            format!("pp{}+tg{}", self.n_prompt, self.n_gen)
        };
        if self.n_depth > 0 { format!("{base} @ d{}", self.n_depth) } else { base }
    }

    /// Context position the test ends at: depth plus its tokens.
    pub fn context_tokens(&self) -> u32 {
        self.n_depth.saturating_add(self.n_prompt).saturating_add(self.n_gen)
    }

    /// The GPU names in `gpu_info`, trimmed, in order.
    pub fn gpus(&self) -> Vec<String> {
        self.gpu_info.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect()
    }
}

/// A measurement file that is not llama-bench output, or is cut short: where and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeasuredError {
    /// Line, 1-based (0 = the file as a whole).
    pub line: usize,
    /// Column, 1-based (0 = the line as a whole).
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for MeasuredError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (0, _) => f.write_str(&self.message),
            (l, 0) => write!(f, "line {l}: {}", self.message),
            (l, c) => write!(f, "line {l}, column {c}: {}", self.message),
        }
    }
}

impl std::error::Error for MeasuredError {}

fn err(line: usize, column: usize, message: impl Into<String>) -> MeasuredError {
    MeasuredError { line, column, message: message.into() }
}

/// The fields of a llama-bench JSON record this reads (others are ignored).
#[derive(Deserialize)]
struct RawRow {
    gpu_info: String,
    model_type: String,
    #[serde(default)]
    model_n_params: Option<u64>,
    n_prompt: u32,
    n_gen: u32,
    #[serde(default)]
    n_depth: u32,
    avg_ts: f64,
}

impl RawRow {
    fn into_row(self, line: usize) -> BenchRow {
        BenchRow {
            gpu_info: self.gpu_info,
            model_type: self.model_type,
            model_n_params: self.model_n_params,
            n_prompt: self.n_prompt,
            n_gen: self.n_gen,
            n_depth: self.n_depth,
            avg_ts: self.avg_ts,
            line,
        }
    }
}

fn json_error(e: &serde_json::Error, line_offset: usize) -> MeasuredError {
    let what = if e.is_eof() {
        "the JSON ends early (truncated file?)".to_owned()
    } else if e.is_data() {
        format!("not llama-bench output: {e}")
    } else {
        format!("not valid JSON: {e}")
    };
    // serde_json's message already ends with " at line L column C"; keep ours short.
    let what = what.split(" at line ").next().unwrap_or(&what).to_owned();
    err(e.line() + line_offset, e.column(), what)
}

/// Line (1-based) of byte offset `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].bytes().filter(|&b| b == b'\n').count() + 1
}

/// Reads llama-bench output in any of its machine formats (JSON, JSONL, CSV), told apart by the
/// first character. Errors: empty file; JSON that does not parse (line and column), that is
/// not an array of llama-bench records (a missing field is named), or ends early; CSV without
/// the needed columns, or a row whose field count differs from the header's (line).
pub fn parse_llama_bench(text: &str) -> Result<Vec<BenchRow>, MeasuredError> {
    let trimmed = text.trim_start();
    let rows = match trimmed.chars().next() {
        None => return Err(err(0, 0, "the file is empty")),
        Some('[') => parse_json_array(text)?,
        Some('{') => parse_jsonl(text)?,
        Some(_) => parse_csv(text)?,
    };
    if rows.is_empty() {
        return Err(err(0, 0, "no llama-bench results in the file"));
    }
    for r in &rows {
        if !(r.avg_ts.is_finite() && r.avg_ts > 0.0) {
            return Err(err(r.line, 0, format!("avg_ts {} is not a positive rate", r.avg_ts)));
        }
        if r.n_prompt == 0 && r.n_gen == 0 {
            return Err(err(r.line, 0, "a test with neither n_prompt nor n_gen"));
        }
    }
    Ok(rows)
}

fn parse_json_array(text: &str) -> Result<Vec<BenchRow>, MeasuredError> {
    let values: Vec<serde_json::Value> = serde_json::from_str(text).map_err(|e| json_error(&e, 0))?;
    // Lines of each record: the line of its opening brace, found by scanning for top-level
    // objects in order (good enough to point at a record; serde_json gives no spans).
    let mut starts = Vec::new();
    let mut depth = 0usize;
    let mut in_str = false;
    let mut escaped = false;
    for (i, b) in text.bytes().enumerate() {
        if in_str {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'{' | b'[' => {
                if b == b'{' && depth == 1 {
                    starts.push(line_of(text, i));
                }
                depth += 1;
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    values
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            let line = starts.get(i).copied().unwrap_or(0);
            serde_json::from_value::<RawRow>(v)
                .map(|r| r.into_row(line))
                .map_err(|e| err(line, 0, format!("record {} is not a llama-bench result: {e}", i + 1)))
        })
        .collect()
}

fn parse_jsonl(text: &str) -> Result<Vec<BenchRow>, MeasuredError> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str::<RawRow>(l).map(|r| r.into_row(i + 1)).map_err(|e| json_error(&e, i)))
        .collect()
}

/// Splits one CSV line into fields: llama-bench quotes every field (`"8cf427ff","5163",...`);
/// unquoted fields and `""` escapes are read too.
fn csv_fields(line: &str) -> Result<Vec<String>, usize> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = line.char_indices().peekable();
    let mut quoted = false;
    let mut open_at = 0;
    while let Some((i, c)) = chars.next() {
        match c {
            '"' if quoted => {
                if chars.peek().is_some_and(|&(_, n)| n == '"') {
                    cur.push('"');
                    chars.next();
                } else {
                    quoted = false;
                }
            }
            '"' if cur.is_empty() => {
                quoted = true;
                open_at = i;
            }
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    if quoted {
        return Err(open_at + 1);
    }
    out.push(cur);
    Ok(out)
}

fn parse_csv(text: &str) -> Result<Vec<BenchRow>, MeasuredError> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let Some((h_at, header)) = lines.next() else { return Err(err(0, 0, "the file is empty")) };
    let header = csv_fields(header).map_err(|c| err(h_at + 1, c, "unterminated quote"))?;
    let col = |name: &str| header.iter().position(|h| h.trim() == name);
    let needed = ["gpu_info", "model_type", "n_prompt", "n_gen", "avg_ts"];
    let missing: Vec<&str> = needed.iter().copied().filter(|n| col(n).is_none()).collect();
    if !missing.is_empty() {
        return Err(err(
            h_at + 1,
            0,
            format!(
                "not llama-bench CSV: the header lacks {} (write it with `llama-bench -o csv`)",
                missing.join(", ")
            ),
        ));
    }
    let idx = |name: &str| col(name).unwrap_or(usize::MAX);
    let mut rows = Vec::new();
    for (i, line) in lines {
        let line_no = i + 1;
        let f = csv_fields(line).map_err(|c| err(line_no, c, "unterminated quote (truncated line?)"))?;
        if f.len() != header.len() {
            return Err(err(
                line_no,
                0,
                format!("{} fields where the header has {} (truncated line?)", f.len(), header.len()),
            ));
        }
        let get = |name: &str| f.get(idx(name)).map_or("", |s| s.trim());
        let num = |name: &str| -> Result<u32, MeasuredError> {
            let v = get(name);
            if v.is_empty() && name == "n_depth" {
                return Ok(0);
            }
            v.parse().map_err(|_| err(line_no, 0, format!("{name} `{v}` is not a whole number")))
        };
        let avg = get("avg_ts");
        rows.push(BenchRow {
            gpu_info: get("gpu_info").to_owned(),
            model_type: get("model_type").to_owned(),
            model_n_params: col("model_n_params").and_then(|_| get("model_n_params").parse().ok()),
            n_prompt: num("n_prompt")?,
            n_gen: num("n_gen")?,
            n_depth: if col("n_depth").is_some() { num("n_depth")? } else { 0 },
            avg_ts: avg.parse().map_err(|_| err(line_no, 0, format!("avg_ts `{avg}` is not a number")))?,
            line: line_no,
        });
    }
    Ok(rows)
}

/// Normalizes a GPU name for comparison: lower case, single spaces.
fn norm(name: &str) -> String {
    name.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// Checks the measured GPUs against the build's (`vendor name` of each catalog GPU, e.g.
/// `NVIDIA GeForce RTX 4080`): every device llama-bench names must be one of the build's GPUs,
/// by exact name (an RTX 4080 SUPER is not an RTX 4080). `Err` names both sides.
pub fn check_gpus(rows: &[BenchRow], build_gpus: &[String]) -> Result<(), String> {
    let theirs: Vec<String> = rows.iter().flat_map(BenchRow::gpus).collect();
    if theirs.is_empty() {
        return Err("the file names no GPU (gpu_info is empty: a CPU-only run?)".into());
    }
    check_gpu_names(&theirs, build_gpus)
}

/// Checks GPU names a measurement file gives (`theirs`) against the build's: every one must be
/// one of the build's GPUs, by exact name after [`norm`]. `Ok` when `theirs` is empty (the
/// caller says that nothing could be checked). `Err` names both sides.
pub(crate) fn check_gpu_names(theirs: &[String], build_gpus: &[String]) -> Result<(), String> {
    let ours: Vec<String> = build_gpus.iter().map(|g| norm(g)).collect();
    let mut theirs: Vec<String> = theirs.to_vec();
    theirs.sort();
    theirs.dedup();
    let foreign: Vec<&String> = theirs.iter().filter(|t| !ours.contains(&norm(t))).collect();
    if foreign.is_empty() {
        return Ok(());
    }
    let mut build = build_gpus.to_vec();
    build.dedup();
    Err(format!(
        "measured on {} but the build has {}: a measurement from another machine does not calibrate this one",
        foreign.iter().map(|s| s.as_str()).collect::<Vec<&str>>().join(", "),
        build.join(", ")
    ))
}

/// One test: what llama-bench measured and what the estimate gives for the same test.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// llama-bench's test name (`tg128`).
    pub test: String,
    /// Whether it is a generation test (decode); else prefill.
    pub generation: bool,
    /// Measured tokens per second.
    pub measured_tok_s: f64,
    /// Estimated tokens per second for the same test; `None` = unknown.
    pub estimated_tok_s: Option<f64>,
}

impl Comparison {
    /// Measured ÷ estimated; `None` when the estimate is unknown.
    pub fn ratio(&self) -> Option<f64> {
        self.estimated_tok_s.filter(|e| *e > 0.0).map(|e| self.measured_tok_s / e)
    }
}

/// The correction factors: geometric mean of measured ÷ estimated over the generation tests
/// and over the prompt tests (`None` where no test of that kind has a known estimate).
pub fn correction_factors(c: &[Comparison]) -> (Option<f64>, Option<f64>) {
    let geo = |generation: bool| {
        let r: Vec<f64> = c.iter().filter(|x| x.generation == generation).filter_map(Comparison::ratio).collect();
        (!r.is_empty()).then(|| (r.iter().map(|x| x.ln()).sum::<f64>() / r.len() as f64).exp())
    };
    (geo(true), geo(false))
}

// ------------------------------------------------------------------ vllm bench serve

/// What `kraftwerk fit --measured` reads from a `vllm bench serve --save-result` file (vLLM's
/// serving benchmark; the same JSON keys since `benchmarks/benchmark_serving.py`). Other keys
/// are ignored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VllmBench {
    /// `model_id` (Hugging Face name or path).
    pub model_id: String,
    /// `--max-concurrency` when the run fixed it.
    pub max_concurrency: Option<u32>,
    /// `request_rate`: requests/s, `None` for `inf`.
    pub request_rate: Option<f64>,
    /// Requests completed.
    pub completed: u64,
    /// Prompt tokens of all completed requests.
    pub total_input_tokens: u64,
    /// Generated tokens of all completed requests.
    pub total_output_tokens: u64,
    /// Completed requests per second.
    pub request_throughput: f64,
    /// Generated tokens per second, all requests.
    pub output_throughput: f64,
    /// Mean time to first token, ms.
    pub mean_ttft_ms: f64,
    /// Mean time per output token after the first, ms.
    pub mean_tpot_ms: f64,
    /// The GPUs the run names, if it names any: vLLM writes none, but `vllm bench serve
    /// --metadata gpu=4xNVIDIA_L40S` (or `gpu_info=...`) stores one in the result, as the
    /// committed fixture has. `None` = the file names no GPU.
    pub gpu_info: Option<String>,
}

impl VllmBench {
    /// Mean prompt tokens per request.
    pub(crate) fn mean_input_tokens(&self) -> f64 {
        self.total_input_tokens as f64 / self.completed.max(1) as f64
    }

    /// Mean generated tokens per request.
    pub(crate) fn mean_output_tokens(&self) -> f64 {
        self.total_output_tokens as f64 / self.completed.max(1) as f64
    }

    /// The GPU names in [`Self::gpu_info`]: comma-separated, each with a leading `4x` count
    /// dropped and underscores read as spaces (`4xNVIDIA_L40S` is `NVIDIA L40S`). Empty when
    /// the file names no GPU.
    pub fn gpus(&self) -> Vec<String> {
        let Some(info) = &self.gpu_info else { return Vec::new() };
        info.split(',')
            .map(|g| {
                let g = g.trim().replace('_', " ");
                let digits = g.chars().take_while(char::is_ascii_digit).count();
                let rest = &g[digits..];
                if digits > 0 && (rest.starts_with('x') || rest.starts_with('X')) {
                    rest[1..].trim().to_owned()
                } else {
                    g.trim().to_owned()
                }
            })
            .filter(|g| !g.is_empty())
            .collect()
    }

    /// Decode rate each sequence saw, tokens/s (`1000 / mean_tpot_ms`).
    pub fn decode_per_sequence_tok_s(&self) -> f64 {
        1000.0 / self.mean_tpot_ms
    }

    /// Sequences in flight on average: `max_concurrency` when the run fixed it, else Little's
    /// law over the run (completed requests/s × mean request time, the request time being
    /// TTFT + TPOT × (output tokens - 1)).
    pub fn mean_concurrency(&self) -> f64 {
        if let Some(c) = self.max_concurrency {
            return f64::from(c);
        }
        let request_s = (self.mean_ttft_ms + self.mean_tpot_ms * (self.mean_output_tokens() - 1.0).max(0.0)) / 1000.0;
        self.request_throughput * request_s
    }
}

/// Whether `text` looks like a `vllm bench serve` result (a JSON object with its keys) rather
/// than llama-bench output.
pub fn is_vllm_bench(text: &str) -> bool {
    text.trim_start().starts_with('{') && text.contains("\"mean_tpot_ms\"") && text.contains("\"output_throughput\"")
}

/// Reads one `vllm bench serve --save-result` JSON object. Errors: JSON that does not parse or
/// ends early (line and column), a key this needs that is missing or of the wrong type (named),
/// or no completed request.
pub fn parse_vllm_bench(text: &str) -> Result<VllmBench, MeasuredError> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        let what = if e.is_eof() {
            "the JSON ends early (truncated file?)".to_owned()
        } else {
            format!("not valid JSON: {e}")
        };
        let what = what.split(" at line ").next().unwrap_or(&what).to_owned();
        err(e.line(), e.column(), what)
    })?;
    let Some(obj) = v.as_object() else {
        return Err(err(1, 1, "not a vllm bench serve result: the file is not one JSON object"));
    };
    let missing = |k: &str| err(1, 1, format!("not a vllm bench serve result: key `{k}` missing or not a number"));
    let num = |k: &str| obj.get(k).and_then(serde_json::Value::as_f64).ok_or_else(|| missing(k));
    let int = |k: &str| obj.get(k).and_then(serde_json::Value::as_u64).ok_or_else(|| missing(k));
    let model_id = obj
        .get("model_id")
        .and_then(serde_json::Value::as_str)
        .ok_or_else(|| err(1, 1, "not a vllm bench serve result: key `model_id` missing"))?
        .to_owned();
    let r = VllmBench {
        model_id,
        max_concurrency: obj
            .get("max_concurrency")
            .and_then(serde_json::Value::as_u64)
            .and_then(|c| u32::try_from(c).ok()),
        request_rate: obj.get("request_rate").and_then(serde_json::Value::as_f64),
        completed: int("completed")?,
        total_input_tokens: int("total_input_tokens")?,
        total_output_tokens: int("total_output_tokens")?,
        request_throughput: num("request_throughput")?,
        output_throughput: num("output_throughput")?,
        mean_ttft_ms: num("mean_ttft_ms")?,
        mean_tpot_ms: num("mean_tpot_ms")?,
        gpu_info: ["gpu_info", "gpu", "gpu_name"]
            .iter()
            .find_map(|k| obj.get(*k).and_then(serde_json::Value::as_str))
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned),
    };
    if r.completed == 0 || r.mean_tpot_ms.is_nan() || r.mean_tpot_ms <= 0.0 {
        return Err(err(0, 0, "the run completed no request (completed 0 or mean_tpot_ms 0)"));
    }
    Ok(r)
}

/// Whether the benchmarked `model_id` names the model with catalog id `id` and name `name`
/// (letters and digits compared, case ignored: `meta-llama/Llama-3.2-3B-Instruct` names
/// `llama-3.2-3b`).
pub fn names_model(model_id: &str, id: &str, name: &str) -> bool {
    let last = model_id.rsplit('/').next().unwrap_or(model_id);
    let alnum = |s: &str| s.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_ascii_lowercase();
    let have = alnum(last);
    have.contains(&alnum(id)) || have.contains(&alnum(name))
}

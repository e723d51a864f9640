//! The user's llama.cpp placement flags (`-ngl`, `--n-cpu-moe`, `-ot`, `--split-mode`,
//! `--tensor-split`, `-ub`, and how the weights are loaded: `--no-mmap`, `--load-mode`,
//! `--no-host`), parsed once into [`LlamaCppFlags`] for [`super::placement`].

#![allow(clippy::doc_markdown, reason = "hardware and format names (PCIe, EPYC, Q4_K_M) read better unquoted")]

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// An `-ot` / `--override-tensor` rule, `REGEX=BUFFER` (llama.cpp `common/arg.cpp`): tensors
/// whose name the regular expression finds (C++ `std::regex_search`, here the `regex` crate's
/// `is_match`, the same for the patterns people write) go to that buffer. Only `CPU` (system
/// RAM) on routed-expert tensors (`blk.N.ffn_{gate,up,down}_exps.weight`) is modelled, with the
/// router and FFN norm of a MoE layer that a broad `ffn.*` rule moves along with them
/// (`placement`); a rule that reaches other tensors is refused.
#[derive(Debug, Clone)]
pub struct TensorOverride {
    pub(super) source: String,
    pub(super) pattern: regex::Regex,
}

impl PartialEq for TensorOverride {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl Serialize for TensorOverride {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl fmt::Display for TensorOverride {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}=CPU", self.source)
    }
}

impl FromStr for TensorOverride {
    type Err = String;

    /// `REGEX=CPU`; errors for a missing `=`, an invalid expression, or a buffer other than
    /// `CPU` (a GPU buffer such as `CUDA1` is not modelled).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (re, buffer) = s
            .rsplit_once('=')
            .ok_or_else(|| format!("-ot `{s}`: give REGEX=CPU (e.g. `blk\\.(1[0-9])\\.ffn_.*_exps=CPU`)"))?;
        if !buffer.trim().eq_ignore_ascii_case("cpu") {
            return Err(format!(
                "-ot `{s}`: buffer `{buffer}` is not modelled; only =CPU (system RAM) on expert tensors is"
            ));
        }
        let pattern = regex::Regex::new(re).map_err(|e| format!("-ot `{s}`: not a regular expression: {e}"))?;
        Ok(TensorOverride { source: re.to_owned(), pattern })
    }
}

/// The names llama.cpp gives one layer's routed-expert tensors (GGUF `LLM_TENSOR_FFN_*_EXPS`).
pub(super) fn expert_tensors(l: u32) -> [String; 3] {
    [
        format!("blk.{l}.ffn_gate_exps.weight"),
        format!("blk.{l}.ffn_up_exps.weight"),
        format!("blk.{l}.ffn_down_exps.weight"),
    ]
}

/// Tensors that are not routed experts; an `-ot` rule that moves one of them is refused (its
/// cost is not modelled).
pub(super) fn other_tensors(l: u32) -> Vec<String> {
    let mut v: Vec<String> = [
        "attn_q",
        "attn_k",
        "attn_v",
        "attn_output",
        "attn_norm",
        "attn_q_a",
        "attn_kv_a_mqa",
        "ffn_gate_inp",
        "ffn_gate_shexp",
        "ffn_up_shexp",
        "ffn_down_shexp",
        "ffn_gate",
        "ffn_up",
        "ffn_down",
        "ffn_norm",
    ]
    .iter()
    .map(|t| format!("blk.{l}.{t}.weight"))
    .collect();
    v.extend(["token_embd.weight".to_owned(), "output.weight".to_owned(), "output_norm.weight".to_owned()]);
    v
}

/// llama.cpp's `--split-mode` over several GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SplitMode {
    /// `layer` (default): consecutive layers per GPU, run one after another.
    #[default]
    Layer,
    /// `row`: every weight matrix split by rows over the GPUs; KV cache and intermediate
    /// results on the main GPU (`-mg`, llama-server README).
    Row,
}

impl FromStr for SplitMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "layer" => Ok(SplitMode::Layer),
            "row" => Ok(SplitMode::Row),
            other => Err(format!("split mode `{other}`: give layer or row")),
        }
    }
}

impl fmt::Display for SplitMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SplitMode::Layer => "layer",
            SplitMode::Row => "row",
        })
    }
}

/// llama.cpp's `--tensor-split a,b,...`: the proportion of the model per GPU.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TensorSplit(pub Vec<f64>);

impl FromStr for TensorSplit {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let parts: Result<Vec<f64>, _> = s
            .split([',', '/'])
            .map(|p| p.trim().parse::<f64>().map_err(|_| format!("--tensor-split `{s}`: `{p}` is not a number")))
            .collect();
        let parts = parts?;
        if parts.is_empty() || parts.iter().any(|p| !p.is_finite() || *p < 0.0) || parts.iter().sum::<f64>() <= 0.0 {
            return Err(format!("--tensor-split `{s}`: give non-negative proportions, at least one above 0"));
        }
        Ok(TensorSplit(parts))
    }
}

/// Which host memory holds the weights llama.cpp leaves in system RAM, and so how its
/// per-micro-batch copy of them to the GPU runs (prompt processing with `--n-cpu-moe` /
/// `-ot exps=CPU`, [`super::placement`]).
///
/// From llama.cpp's loader (`src/llama-model-loader.cpp`, `create_tensor`, ggml-org/llama.cpp
/// commit 00347649deb8; the same rule in `src/llama-model.cpp` `load_tensors` of earlier builds):
/// a weight placed on the CPU prefers the first GPU's host buffer type
/// (`make_cpu_buft_list`: "storing the tensors in a host buffer is useful when the processing of
/// large batches is offloaded to a GPU device"), which for CUDA is `CUDA_Host`, allocated with
/// `cudaMallocHost` (`ggml_cuda_host_malloc`, `ggml/src/ggml-cuda/ggml-cuda.cu`): pinned. But
/// "avoid using a host buffer when using mmap": with mmap on, the loader demotes it to the plain
/// CPU buffer type and the weights stay in the file mapping (`CPU_Mapped`,
/// `ggml/src/ggml-backend.cpp`): pageable. A copy from pageable memory is staged by the CUDA
/// driver through its own pinned buffer (CUDA Runtime API, "API synchronization behavior": "the
/// function will return once the pageable buffer has been copied to the staging memory for DMA
/// transfer"), so it runs below the pinned rate. `--no-host` drops the host buffer type from the
/// list, so the weights are pageable with or without mmap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HostWeightMemory {
    /// The file mapping (`CPU_Mapped`): llama.cpp's default (mmap on; llama-bench `-mmp 1`,
    /// `--load-mode mmap`, `mmap+mlock`, `auto` on a discrete GPU), or any load with `--no-host`.
    #[default]
    Pageable,
    /// A pinned host buffer (`CUDA_Host`): `--no-mmap`, llama-bench `-mmp 0`, `--load-mode
    /// none`, `mlock` or `dio`.
    Pinned,
    /// The file mapping with `--no-host` given: pageable, copied at the pageable rate; said
    /// apart so the line and the arguments keep the flag the user gave.
    PageableNoHost,
    /// Loaded without a mapping (`--no-mmap` or a load mode without one) but with `--no-host`:
    /// plain, unpinned memory, copied at the pageable rate.
    UnmappedNoHost,
}

impl HostWeightMemory {
    /// What the flags say: `--no-mmap` (or a load mode without a mapping) pins the weights
    /// unless `--no-host` keeps them in plain memory; `None` when no load flag was given.
    pub fn of_flags(no_mmap: Option<bool>, no_host: bool) -> Option<HostWeightMemory> {
        match (no_mmap, no_host) {
            (Some(true), false) => Some(HostWeightMemory::Pinned),
            (Some(true), true) => Some(HostWeightMemory::UnmappedNoHost),
            (_, true) => Some(HostWeightMemory::PageableNoHost),
            (Some(false), false) => Some(HostWeightMemory::Pageable),
            (None, false) => None,
        }
    }

    /// In words, for the prefill line: where the copy reads from and the flag that sets it.
    pub fn copy_words(self) -> &'static str {
        match self {
            HostWeightMemory::Pageable => {
                "from pageable memory (mmap on, llama.cpp's default; --no-mmap would pin them)"
            }
            HostWeightMemory::Pinned => "from pinned memory (--no-mmap)",
            HostWeightMemory::PageableNoHost => "from pageable memory (--no-host: no pinned host buffer)",
            HostWeightMemory::UnmappedNoHost => {
                "from pageable memory (--no-mmap with --no-host: loaded into plain, unpinned memory)"
            }
        }
    }

    /// The load flags that give this, for the placement's arguments (empty for llama.cpp's
    /// default, pageable with mmap on).
    pub fn args(self) -> &'static str {
        match self {
            HostWeightMemory::Pageable => "",
            HostWeightMemory::Pinned => " --no-mmap",
            HostWeightMemory::PageableNoHost => " --no-host",
            HostWeightMemory::UnmappedNoHost => " --no-mmap --no-host",
        }
    }
}

/// llama.cpp's `--load-mode` (`llama_load_mode_from_str`, `src/llama.cpp`: `none`, `mmap`,
/// `mlock`, `mmap+mlock`, `dio`; `auto` in builds after ggml-org/llama.cpp PR 26081), reduced
/// to whether the weights are mapped: `Ok(true)` for a load without a mapping (`none`, `mlock`,
/// `dio`), `Ok(false)` for a mapped one.
///
/// # Errors
/// A mode llama.cpp does not name.
pub fn load_mode_is_unmapped(s: &str) -> Result<bool, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "none" | "mlock" | "dio" => Ok(true),
        "mmap" | "mmap+mlock" | "auto" => Ok(false),
        other => Err(format!("--load-mode `{other}`: give none, mmap, mlock, mmap+mlock, dio or auto")),
    }
}

/// The user's llama.cpp placement flags, parsed once.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct LlamaCppFlags {
    /// `-ngl`: layers on the GPUs; `None` = all.
    pub n_gpu_layers: Option<u32>,
    /// `--n-cpu-moe N`: the routed experts of layers `0..N` in system RAM.
    pub n_cpu_moe: Option<u32>,
    /// `-ot REGEX=CPU` rules, applied after `--n-cpu-moe`.
    pub overrides: Vec<TensorOverride>,
    /// `--split-mode`.
    pub split_mode: SplitMode,
    /// `--tensor-split`; `None` = in proportion to free memory.
    pub tensor_split: Option<TensorSplit>,
    /// `-ub` / `--ubatch-size`: tokens per micro-batch; `None` = llama.cpp's 512. Each
    /// micro-batch copies the host-held weights to the GPU once, so a larger one amortises it.
    pub ubatch: Option<u32>,
    /// Where the weights left in system RAM live ([`HostWeightMemory::of_flags`] of
    /// `--no-mmap` / `--load-mode` / `--no-host`); `None` = not given, the input's
    /// [`super::inputs::FitInput::llama_cpp_host_weights`] (llama.cpp's default: pageable).
    pub host_weights: Option<HostWeightMemory>,
    /// ik_llama.cpp `-rtr` / `--run-time-repack`: the tensors in system RAM are repacked to
    /// CPU-only types, so the prompt's RAM-held experts are computed on the CPU
    /// ([`super::cpu_prefill::ram_experts_path`]); a load flag like `host_weights`, not a
    /// placement.
    pub run_time_repack: bool,
}

impl LlamaCppFlags {
    /// Whether any llama.cpp flag was given that asks for llama.cpp (a placement flag, or `-ub`);
    /// a load flag, [`LlamaCppFlags::host_weights`], alone is not one: it changes the copy rate
    /// of whatever placement is estimated.
    pub fn any(&self) -> bool {
        self.places() || self.ubatch.is_some()
    }

    /// Whether a placement was given: `-ngl`, `--n-cpu-moe`, `-ot`, `-sm row` or `-ts`, the
    /// flags that make llama.cpp's own placement search give up ("n_gpu_layers already set by
    /// user", "tensor_split already set by user", "tensor_buft_overrides already set by user",
    /// "changing weight allocation for LLAMA_SPLIT_MODE_ROW not implemented": `common/fit.cpp`,
    /// ggml-org/llama.cpp at 6d0892ba065b). `-ub` alone is not one: llama.cpp still searches
    /// a placement, with its compute buffers reserved at that micro-batch
    /// (`llama_context::sched_reserve`, `n_tokens = min(n_ctx, n_ubatch)`), and so does `fit`
    /// ([`super::inputs::FitInput::prompt_ubatch_tokens`]).
    pub fn places(&self) -> bool {
        self.n_gpu_layers.is_some()
            || self.n_cpu_moe.is_some()
            || !self.overrides.is_empty()
            || self.split_mode != SplitMode::Layer
            || self.tensor_split.is_some()
    }
}

/// A llama.cpp command line pasted whole (`llama-server -m x.gguf -ngl 99 --n-cpu-moe 20 -c
/// 32768 ...`), read for the flags that set the placement: what the GUI's Fit tab takes in one
/// text field, the same flags `kraftwerk fit` takes one by one.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PastedFlags {
    /// The placement flags read.
    pub flags: LlamaCppFlags,
    /// Flags that are not modelled (`-fa`, `--port`, `-dev`, `-nkvo` ...), in order, each with
    /// its value where it has one, said so.
    pub ignored: Vec<String>,
    /// Flags the form sets instead (`-m`, `-c`, `-ctk`, `-ctv`, `-np`; [`SET_BY_THE_FORM`]),
    /// each with its value: left out, and said so.
    pub set_by_form: Vec<String>,
}

/// Splits a command line into words as a POSIX shell would for the quoting people paste:
/// single quotes keep everything, double quotes keep everything but `\"` and `\\`, a backslash
/// outside quotes keeps the next character. Errors for an unclosed quote.
fn shell_words(s: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(ch) => cur.push(ch),
                        None => return Err("an unclosed ' quote".to_owned()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(ch @ ('"' | '\\')) => cur.push(ch),
                            Some(ch) => {
                                cur.push('\\');
                                cur.push(ch);
                            }
                            None => return Err("an unclosed \" quote".to_owned()),
                        },
                        Some(ch) => cur.push(ch),
                        None => return Err("an unclosed \" quote".to_owned()),
                    }
                }
            }
            '\\' => match chars.next() {
                // A line continuation (`\` then a line break, LF or CRLF) joins the lines.
                Some('\n') | None => {}
                Some('\r') => {
                    if chars.clone().next() == Some('\n') {
                        chars.next();
                    }
                }
                Some(ch) => {
                    in_word = true;
                    cur.push(ch);
                }
            },
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    // A `\` followed by trailing spaces before the line break (a common paste artifact) makes
    // a word of blanks, which a script does not mean: dropped.
    words.retain(|w| !w.trim().is_empty());
    Ok(words)
}

/// llama.cpp's `--cpu-moe` rule (`common/arg.cpp` adds it as an `-ot` rule;
/// `LLM_FFN_EXPS_REGEX` in `common/common.h`): every routed expert in system RAM.
pub const CPU_MOE_RULE: &str = r"\.ffn_(up|down|gate|gate_up)_(ch|)exps=CPU";

/// Flags of a pasted command line that the Fit tab's form sets instead (model, context, KV
/// cache precision, parallel sequences): left out of the placement, and said so apart from the
/// flags that are not modelled at all.
const SET_BY_THE_FORM: &[&str] = &[
    "-m",
    "--model",
    "-c",
    "--ctx-size",
    "-ctk",
    "--cache-type-k",
    "-ctv",
    "--cache-type-v",
    "-np",
    "--parallel",
    "-hf",
    "-hfr",
    "--hf-repo",
];

impl FromStr for PastedFlags {
    type Err = String;

    /// Reads `-ngl`/`--n-gpu-layers`/`--gpu-layers` (a number; `all` and `auto` read as not
    /// given: every layer, or llama.cpp's own fit), `--n-cpu-moe`/`-ncmoe`, `--cpu-moe`/`-cmoe`
    /// (all routed experts in system RAM: the rule llama.cpp's `common/arg.cpp` adds for it,
    /// `LLM_FFN_EXPS_REGEX`, `\.ffn_(up|down|gate|gate_up)_(ch|)exps=CPU`), `-ot`/
    /// `--override-tensor` (several rules may be comma-separated, as llama.cpp allows),
    /// `-sm`/`--split-mode`, `-ts`/`--tensor-split`, `-ub`/`--ubatch-size`, and where the
    /// RAM-held weights sit: `--no-mmap`, `--mmap`, `-mmp 0|1`, `--load-mode`, `--no-host`.
    /// As llama.cpp does (`common_params_parse_ex`), `_` in a `--` flag reads as `-`
    /// (`--n_cpu_moe`); `--flag=value` is read too. A word before the first flag (the program's
    /// name), an environment assignment before it, and every other flag with its value are kept
    /// in [`PastedFlags::ignored`] (those the form sets in [`PastedFlags::set_by_form`]). A `\`
    /// before a line break joins the lines, as a shell does. Errors name the flag: a missing or
    /// malformed value, or a quote left open.
    fn from_str(line: &str) -> Result<Self, Self::Err> {
        let words = shell_words(line)?;
        let mut out = PastedFlags::default();
        let mut unmapped: Option<bool> = None;
        let mut no_host = false;
        let mut seen_flag = false;
        // Whether the last flag read went to `set_by_form` (its value follows it there).
        let mut last_set_by_form = false;
        let mut next = 0;
        while next < words.len() {
            let word = &words[next];
            next += 1;
            if !word.starts_with('-') || word == "-" {
                // The program name (and `VAR=value` before it), or the value of a flag that is
                // not modelled.
                if !seen_flag {
                    continue;
                }
                let last = if last_set_by_form { out.set_by_form.last_mut() } else { out.ignored.last_mut() };
                match last {
                    Some(l) => {
                        l.push(' ');
                        l.push_str(word);
                    }
                    None => out.ignored.push(word.clone()),
                }
                continue;
            }
            seen_flag = true;
            let (raw, inline) = match word.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n.to_owned(), Some(v.to_owned())),
                _ => (word.clone(), None),
            };
            let name = if raw.starts_with("--") { raw.replace('_', "-") } else { raw };
            let takes_value = matches!(
                name.as_str(),
                "-ngl"
                    | "--n-gpu-layers"
                    | "--gpu-layers"
                    | "--n-cpu-moe"
                    | "-ncmoe"
                    | "-ot"
                    | "--override-tensor"
                    | "-sm"
                    | "--split-mode"
                    | "-ts"
                    | "--tensor-split"
                    | "-ub"
                    | "--ubatch-size"
                    | "-mmp"
                    | "--load-mode"
            );
            if !takes_value {
                last_set_by_form = false;
                match name.as_str() {
                    "--cpu-moe" | "-cmoe" => {
                        out.flags.overrides.push(CPU_MOE_RULE.parse()?);
                    }
                    "--no-mmap" => unmapped = Some(true),
                    "--mmap" => unmapped = Some(inline.as_deref().is_some_and(|v| v.trim() == "0")),
                    "--no-host" => no_host = true,
                    "-rtr" | "--run-time-repack" => out.flags.run_time_repack = true,
                    _ if SET_BY_THE_FORM.contains(&name.as_str()) => {
                        out.set_by_form.push(word.clone());
                        last_set_by_form = true;
                    }
                    _ => out.ignored.push(word.clone()),
                }
                continue;
            }
            last_set_by_form = false;
            let value = if let Some(v) = inline {
                v
            } else {
                let v = words.get(next).filter(|v| !v.starts_with("--")).cloned();
                next += 1;
                v.ok_or_else(|| format!("{name}: give a value"))?
            };
            let number = |v: &str| -> Result<u32, String> {
                v.trim().parse::<u32>().map_err(|_| format!("{name} `{v}`: give a whole number"))
            };
            match name.as_str() {
                "-ngl" | "--n-gpu-layers" | "--gpu-layers" => {
                    out.flags.n_gpu_layers = match value.trim() {
                        "all" | "auto" => None,
                        v => Some(number(v)?),
                    };
                }
                "--n-cpu-moe" | "-ncmoe" => out.flags.n_cpu_moe = Some(number(&value)?),
                "-ot" | "--override-tensor" => {
                    for rule in value.split(',').filter(|r| !r.trim().is_empty()) {
                        out.flags.overrides.push(rule.trim().parse()?);
                    }
                }
                "-sm" | "--split-mode" => out.flags.split_mode = value.parse()?,
                "-ts" | "--tensor-split" => out.flags.tensor_split = Some(value.parse()?),
                "-mmp" => {
                    unmapped = Some(match value.trim() {
                        "0" => true,
                        "1" => false,
                        v => return Err(format!("-mmp `{v}`: give 0 or 1")),
                    });
                }
                "--load-mode" => unmapped = Some(load_mode_is_unmapped(&value)?),
                _ => out.flags.ubatch = Some(number(&value)?),
            }
        }
        out.flags.host_weights = HostWeightMemory::of_flags(unmapped, no_host);
        Ok(out)
    }
}

#[cfg(test)]
mod pasted_tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]
    use super::*;

    #[test]
    fn a_pasted_server_command_reads_its_placement_and_names_the_rest() {
        let p: PastedFlags = "llama-server -m gpt-oss-120b.gguf -ngl 99 --n-cpu-moe 28 -c 32768 -fa on \
                              -ot \"blk\\.(3[0-5])\\.ffn_.*_exps=CPU\" -ub 2048 --jinja --port=8080"
            .parse()
            .unwrap();
        assert_eq!(p.flags.n_gpu_layers, Some(99));
        assert_eq!(p.flags.n_cpu_moe, Some(28));
        assert_eq!(p.flags.ubatch, Some(2048));
        assert_eq!(p.flags.overrides.len(), 1);
        assert_eq!(p.flags.overrides[0].to_string(), r"blk\.(3[0-5])\.ffn_.*_exps=CPU");
        assert_eq!(p.ignored, ["-fa on", "--jinja", "--port=8080"]);
        assert_eq!(p.set_by_form, ["-m gpt-oss-120b.gguf", "-c 32768"]);
    }

    #[test]
    fn cpu_moe_comma_rules_and_errors() {
        let p: PastedFlags = "--cpu-moe -sm row -ts 3,1".parse().unwrap();
        assert_eq!(p.flags.overrides[0].to_string(), r"\.ffn_(up|down|gate|gate_up)_(ch|)exps=CPU");
        assert_eq!(p.flags.split_mode, SplitMode::Row);
        assert_eq!(p.flags.tensor_split, Some(TensorSplit(vec![3.0, 1.0])));
        let p: PastedFlags = "-ot exps=CPU,blk\\.1\\.ffn_.*=CPU".parse().unwrap();
        assert_eq!(p.flags.overrides.len(), 2);
        assert!("".parse::<PastedFlags>().unwrap().flags == LlamaCppFlags::default());
        assert_eq!("-ngl".parse::<PastedFlags>().unwrap_err(), "-ngl: give a value");
        assert_eq!("-ngl x".parse::<PastedFlags>().unwrap_err(), "-ngl `x`: give a whole number");
        assert!("-ot 'exps=CPU".parse::<PastedFlags>().unwrap_err().contains("unclosed"));
        assert!("-ot exps=CUDA1".parse::<PastedFlags>().unwrap_err().contains("not modelled"));
    }

    /// A script pasted as written: `\` line continuations, llama.cpp's `_` spellings, `-ngl
    /// all`, an environment assignment before the program, and the load flags.
    #[test]
    fn a_multi_line_script_with_underscores_and_load_flags() {
        let p: PastedFlags =
            "GGML_CUDA_GRAPH_OPT=1 ./llama-server -m x.gguf \\\n--n_cpu_moe 20 \\\n-ngl all --no-mmap\n-fa on"
                .parse()
                .unwrap();
        assert_eq!(p.flags.n_cpu_moe, Some(20));
        assert_eq!(p.flags.n_gpu_layers, None);
        assert_eq!(p.flags.host_weights, Some(HostWeightMemory::Pinned));
        assert_eq!(p.set_by_form, ["-m x.gguf"]);
        assert_eq!(p.ignored, ["-fa on"]);
        let p: PastedFlags = "-mmp 1 --no-host".parse().unwrap();
        assert_eq!(p.flags.host_weights, Some(HostWeightMemory::PageableNoHost));
        let p: PastedFlags = "--load-mode=dio".parse().unwrap();
        assert_eq!(p.flags.host_weights, Some(HostWeightMemory::Pinned));
        assert_eq!("-ngl -3".parse::<PastedFlags>().unwrap_err(), "-ngl `-3`: give a whole number");
        let p: PastedFlags = "llama-server -fa on \\ \n  --n-cpu-moe 3 \\\r\n --threads 32".parse().unwrap();
        assert_eq!(p.ignored, ["-fa on", "--threads 32"], "no blank item from a trailing `\\ `");
        assert_eq!(p.flags.n_cpu_moe, Some(3));
    }

    /// ik_llama.cpp's `-rtr` (sousekd's command of IK-06, ik_llama.cpp Discussion 258) is read as
    /// a load flag: no placement, the RAM-held experts computed on the CPU.
    #[test]
    fn run_time_repack_is_read() {
        let p: PastedFlags =
            "llama-sweep-bench --no-mmap -mla 3 -fa -fmoe -rtr --n-gpu-layers 63 --override-tensor exps=CPU"
                .parse()
                .unwrap();
        assert!(p.flags.run_time_repack);
        assert_eq!(p.flags.n_gpu_layers, Some(63));
        let p: PastedFlags = "--run-time-repack".parse().unwrap();
        assert!(p.flags.run_time_repack && !p.flags.places());
        assert!(!"-ngl 99".parse::<PastedFlags>().unwrap().flags.run_time_repack);
    }
}

//! The command-line spellings of a llama.cpp placement: its `llama-server` arguments
//! (`args_of`) and their `llama-bench` spelling (`llama_bench_args`).

use super::{LlamaCppFlags, SplitMode};
use crate::estimate::llm::inputs::FitInput;
use std::fmt::Write as _;

/// `llama-bench`'s spelling of a placement's server arguments (`server_args`, as
/// [`LlamaCppFit::args`] writes them for `llama-server`): the context and parallel-slot flags
/// (`-c`, `-np`) dropped (llama-bench sets its test sizes with `-p`, `-n`, `-d`), `--n-cpu-moe N`
/// as `-ncmoe N`, the `-ot` rules joined into one `-ot "a;b"` (a comma would start a second
/// test), `-ts a,b` as `-ts a/b`, `--no-mmap` as `-mmp 0`, `--no-host` as `--no-host 1`;
/// `-ngl`, `-sm`, `-ub` as they are. The spellings are llama-bench's usage text
/// (tools/llama-bench/llama-bench.cpp, `print_usage`: `-ncmoe, --n-cpu-moe <n>`, `-mmp, --mmap
/// <0|1>`, `-ts, --tensor-split <ts0/ts1/..>`, `-ot --override-tensor <tensor name
/// pattern>=<buffer type>;...`, `--no-host <0|1>`; "Multiple values can be given for each
/// parameter by separating them with ','").
pub fn llama_bench_args(server_args: &str) -> String {
    let tokens = split_quoted(server_args);
    let mut out: Vec<String> = Vec::new();
    let mut overrides: Vec<String> = Vec::new();
    let mut it = tokens.into_iter();
    while let Some(t) = it.next() {
        match t.as_str() {
            "-c" | "-np" => {
                it.next();
            }
            "--n-cpu-moe" => out.push(format!("-ncmoe {}", it.next().unwrap_or_default())),
            // One value may hold several comma-separated rules (llama.cpp's `-ot`).
            "-ot" => overrides.extend(it.next().iter().flat_map(|v| v.split(',')).map(str::to_owned)),
            "-ts" => out.push(format!("-ts {}", it.next().unwrap_or_default().replace(',', "/"))),
            "--no-mmap" => out.push("-mmp 0".to_owned()),
            "--no-host" => out.push("--no-host 1".to_owned()),
            "-ngl" | "-sm" | "-ub" => out.push(format!("{t} {}", it.next().unwrap_or_default())),
            other => out.push(other.to_owned()),
        }
    }
    if !overrides.is_empty() {
        out.push(format!("-ot \"{}\"", overrides.join(";")));
    }
    out.join(" ")
}

/// `s` split at spaces, a double-quoted stretch kept whole without its quotes.
fn split_quoted(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for ch in s.chars() {
        match ch {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            _ => cur.push(ch),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The `llama-server` arguments of a placement: context and parallel slots, `-ngl`,
/// `--n-cpu-moe`, the `-ot` rules, the split mode, `-ub`, the host-weights flags and `-ts`.
pub(super) fn args_of(input: &FitInput, ngl: u32, flags: &LlamaCppFlags, split: &[u32], n_cpu_moe: u32) -> String {
    let mut args =
        format!("{} -ngl {ngl}", crate::estimate::llm::runtime_memory::context_args(input.context_tokens, input.batch));
    if n_cpu_moe > 0 {
        let _ = write!(args, " --n-cpu-moe {n_cpu_moe}");
    }
    for o in &flags.overrides {
        let _ = write!(args, " -ot \"{o}\"");
    }
    if flags.split_mode == SplitMode::Row {
        args.push_str(" -sm row");
    }
    if let Some(ub) = flags.ubatch.or(input.prompt_ubatch_tokens) {
        let _ = write!(args, " -ub {ub}");
    }
    args.push_str(input.llama_cpp_host_weights.args());
    if split.len() > 1 {
        let ts: Vec<String> = match &flags.tensor_split {
            Some(t) => t.0.iter().map(|v| format!("{v}")).collect(),
            None => split.iter().map(u32::to_string).collect(),
        };
        let _ = write!(args, " -ts {}", ts.join(","));
    }
    args
}

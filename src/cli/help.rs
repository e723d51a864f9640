//! The "Exit codes" paragraph of each subcommand's `--help` (clap `after_help`), so a script
//! writer finds them where they look first. `tests/cli.rs` checks every subcommand has one.
//! Exit code 2 also covers a usage error (clap's own code for a bad argument).

/// `kraftwerk --help`.
pub const TOP: &str = "Exit codes: 0 pass; 1 errors found (check: FAIL), a model that does not fit, a failed validation, probe, link check, fleet node or plan, import lines not matched, no catalog search match; 2 bad input (file:line:column) or bad usage; 3 not a pass although nothing failed: check INCOMPLETE, EMPTY or UNVERIFIED (a rule that could report an error did not run), fit tight below the context asked, validate, fleet and probe UNVERIFIED / NOT MEASURED (a check measured nothing), gpus could not measure (no driver or GPU). Each subcommand's --help lists its own.";
/// `kraftwerk catalog --help`.
pub const CATALOG: &str = "Exit codes: 0 listed; 2 unknown kind, bad usage or a broken built-in catalog.";
/// `kraftwerk catalog search --help`.
pub const CATALOG_SEARCH: &str =
    "Exit codes: 0 at least one part matched; 1 nothing matched; 2 unknown --kind or bad usage.";
/// `kraftwerk check --help`.
pub const CHECK: &str = "Exit codes: 0 PASS or PASS WITH WARNINGS; 1 FAIL (findings of error severity); 2 the file could not be read or parsed (file:line:column), an unknown --explain rule or bad usage; 3 INCOMPLETE (a part the rules need is not chosen), EMPTY (nothing chosen) or UNVERIFIED (a rule that could report an error did not run: a figure it needs is unknown; the text lists what to supply): not a pass.";
/// `kraftwerk examples --help`.
pub const EXAMPLES: &str =
    "Exit codes: 0 listed or written; 2 the folder cannot be created or a file cannot be written, or bad usage.";
/// `kraftwerk rules --help`.
pub const RULES: &str = "Exit codes: 0 listed; 2 bad usage.";
/// `kraftwerk power --help`.
pub const POWER: &str =
    "Exit codes: 0 estimated; 2 the file could not be read or parsed (file:line:column) or bad usage.";
/// `kraftwerk fit --help`.
pub const FIT: &str = "Exit codes: 0 fits (or tight at a context that keeps the headroom, or fits with the experts of a MoE model in system RAM); 1 does not fit; 3 tight: fits only by eating into the headroom, and the longest context that keeps it is below the one asked (the verdict names it): not a pass; 2 bad input (build or model file, context or batch out of range, a --measured file that is unreadable or from other GPUs or another model) or bad usage. The JSON's top-level verdict says the same (fits, tight, fits_with_experts_in_ram: 0; does_not_fit: 1; tight_below_context: 3).";
/// `kraftwerk validate --help`.
pub const VALIDATE: &str = "Exit codes: 0 no check failed and every check measured something; 1 any check failed; 3 UNVERIFIED: nothing failed but a check measured nothing (no PCIe sample under load, no probe data, a cancelled probe); 2 bad input (build, recording, nvidia-smi dump or report file) or bad usage.";
/// `kraftwerk fleet --help`.
pub const FLEET: &str = "Exit codes: 0 every node passed and no outlier; 1 a failed node or an outlier; 3 nothing failed but a node measured nothing (a report without GPUs, a check not measured); 2 a report could not be read or bad usage.";
/// `kraftwerk gpus --help`.
pub const GPUS: &str = "Exit codes: 0 listed; 3 could not measure: no NVIDIA driver, no GPU or NVML failed (the output says which); 2 bad usage.";
/// `kraftwerk monitor --help`.
pub const MONITOR: &str = "Exit codes: 0 sampled (or nothing to sample: no driver, said so); 2 bad --seconds, the Prometheus address cannot be served, the recording cannot be saved, or bad usage.";
/// `kraftwerk probe --help`.
pub const PROBE: &str = "Exit codes: 0 no check failed and every check measured something; 1 any check failed; 3 NOT MEASURED: nothing failed but a check measured nothing (the CPU backend measured no GPU, a GEMM rate of zero); 2 bad arguments (precision, backend, GPU id) or bad usage.";
/// `kraftwerk links --help`.
pub const LINKS: &str = "Exit codes: 0 passed or nothing measured (no GPU: verdict not_run); 1 a link check failed; 2 bad --build file, --max-bytes or bad usage.";
/// `kraftwerk compare --help`.
pub const COMPARE: &str =
    "Exit codes: 0 compared; 2 a build file could not be read (file:line:column), an unknown --model or bad usage.";
/// `kraftwerk plan --help`.
pub const PLAN: &str = "Exit codes: 0 at least one build meets the goal; 1 nothing meets the goal; 2 bad input (model, model file, part, goal; a --measured file that is unreadable, names no GPU without --measured-gpu, or names another GPU than an owned card or another model), an --out folder that cannot be written, or bad usage.";
/// `kraftwerk completions --help`.
pub const COMPLETIONS: &str = "Exit codes: 0 printed; 2 bad usage or stdout not writable.\n\nInstall, e.g.: kraftwerk completions bash > ~/.local/share/bash-completion/completions/kraftwerk (scripts/install.sh does this for bash, zsh and fish).";
/// `kraftwerk man --help`.
pub const MAN: &str = "Exit codes: 0 printed; 2 bad usage or stdout not writable.\n\nRead it with: kraftwerk man > kraftwerk.1 && man -l kraftwerk.1";
/// `kraftwerk import --help`.
pub const IMPORT: &str = "Exit codes: 0 every line matched; 1 some lines not imported (named on stderr and in the build's notes; the build is still written); 2 unreadable input (file:line:column), an --out file that cannot be written or read, or bad usage.";
/// `kraftwerk export --help`.
pub const EXPORT: &str =
    "Exit codes: 0 written; 2 the build file could not be read or parsed (file:line:column), or bad usage.";
/// `kraftwerk prices --help`.
pub const PRICES: &str =
    "Exit codes: 0 listed; 2 the build file could not be read or parsed (file:line:column), or bad usage.";
/// `kraftwerk board probe --help`.
pub const BOARD_PROBE: &str = "Exit codes: 0 a complete entry for a catalog board, which loads through the wiring loader; 3 not a pass: a card slot not determined (INCOMPLETE), no slot table (run as root), no slot determined, or no catalog board matched (pass --board ID); 2 an unknown --board, a bad --date, an unwritable --out or bad usage.";
/// `kraftwerk board --help`.
pub const BOARD: &str = "Exit codes: 0 done; 3 not a pass (see `board probe --help`); 2 bad usage.";

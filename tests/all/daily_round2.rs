//! Issue 39, "a daily tool, round 2": what a new user hit in the CLI, each as a test seen
//! failing before its fix (fit's verdict and exit code against the longest context, the exit
//! codes in `--help`, PCPartPicker titles on import, lossless `export --list` + `import`,
//! "at least" beside unpriced parts, money in one unambiguous form).

use crate::common::{kw_no_user_files, manifest_dir};

fn fixture(name: &str) -> String {
    manifest_dir().join("tests/fixtures").join(name).display().to_string()
}

/// A tight fit whose longest context that keeps the headroom is below the context asked is
/// not a pass: the verdict says so and `fit` exits 3 (it printed "tight" and exited 0).
#[test]
fn a_tight_fit_below_the_context_asked_is_not_a_pass() {
    let build = fixture("2x-rtx-3090-64gib.rig.ron");
    let args = ["fit", &build, "--model", "llama-3.1-70b", "--precision", "q4_k_m", "--context", "16384"];
    let (code, out, err) = kw_no_user_files(&args);
    assert_eq!(code, 3, "tight below the context asked is exit 3: {out}{err}");
    let headline = out.lines().next().unwrap_or_default();
    assert!(headline.contains("tight: the longest context that keeps the headroom is "), "{headline}");
    assert!(headline.contains("below the 16384 asked"), "{headline}");
    // The longest context it names is a pass.
    let longest: String = headline
        .split("keeps the headroom is ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .unwrap_or_default()
        .to_owned();
    let (code, out, err) =
        kw_no_user_files(&["fit", &build, "--model", "llama-3.1-70b", "--precision", "q4_k_m", "--context", &longest]);
    assert_eq!(code, 0, "the longest context named fits: {out}{err}");
    assert!(out.lines().next().unwrap_or_default().contains(": fits ("), "{out}");
}

/// `kraftwerk --help` lists every exit code, 3 = UNVERIFIED among them, from `cli::help`.
#[test]
fn top_help_lists_every_exit_code() {
    let (code, out, _) = kw_no_user_files(&["--help"]);
    assert_eq!(code, 0);
    for needle in [
        "0 pass",
        "1 errors found",
        "2 bad input",
        "3 not a pass",
        "UNVERIFIED",
        "INCOMPLETE",
        "EMPTY",
        "fit tight",
        "gpus could not measure",
    ] {
        assert!(out.contains(needle), "`{needle}` missing from --help:\n{out}");
    }
}

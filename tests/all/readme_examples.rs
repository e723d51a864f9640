//! Every command and build example of README.md and docs/*.md, run: none can rot.
//!
//! Fenced blocks are read by their info string:
//! - ```` ```sh ````: each line (`\`-continued lines joined) is a `kraftwerk` command, run with
//!   the built binary in a scratch folder holding `catalog/` and `tests/` of the repository
//!   (README.md's: neither, as a user with only the binary has) and the files the page's earlier
//!   blocks wrote, without user parts or prices; its exit code must
//!   be the one its trailing comment names (`# exit 3`), else 0.
//! - ```` ```sh needs=display ```` / ```` needs=gpu ````: only parsed: the subcommand exists and
//!   takes each `--flag` (its `--help` lists it), or the build file it opens exists.
//! - ```` ```sh setup ````: commands for a developer's machine (cargo, apt-get, xtask), not run;
//!   every repository path they name exists.
//! - ```` ```ron build file=NAME ````: read through the one build loader with the built-in
//!   catalog, and written to NAME for the commands after it; ```` ```ron prices ```` through the
//!   price-file reader (no error); ```` ```ron excerpt ```` is a fragment and says so (`...`).
//! - ```` ```json shape ````: the shape of an output, ```` ```text output ```` an output as
//!   printed: not run.
//!
//! Any other fenced block fails the test: a new example must say what it is.

use crate::support::manifest_dir;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One fenced block: its page, first line, info string and text.
struct Block {
    page: String,
    line: usize,
    lang: String,
    attrs: Vec<String>,
    text: String,
}

fn pages() -> Vec<PathBuf> {
    let root = manifest_dir();
    let mut out = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    out.extend(docs);
    out
}

fn blocks(page: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(page).expect("page");
    let name = page.strip_prefix(manifest_dir()).unwrap_or(page).display().to_string();
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        if let Some(info) = line.strip_prefix("```") {
            if let Some(b) = open.take() {
                out.push(b);
            } else {
                let mut words = info.split_whitespace().map(str::to_owned);
                let lang = words.next().unwrap_or_default();
                open =
                    Some(Block { page: name.clone(), line: i + 1, lang, attrs: words.collect(), text: String::new() });
            }
            continue;
        }
        if let Some(b) = open.as_mut() {
            b.text.push_str(line);
            b.text.push('\n');
        }
    }
    assert!(open.is_none(), "{name}: a fenced block is never closed");
    out
}

/// The commands of a shell block: `\`-continued lines joined, blank lines and comments skipped.
fn commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for line in text.lines() {
        let t = line.trim_end();
        if let Some(head) = t.strip_suffix('\\') {
            cur.push_str(head);
            cur.push(' ');
            continue;
        }
        cur.push_str(t);
        let c = cur.trim().to_owned();
        cur.clear();
        if !c.is_empty() && !c.starts_with('#') {
            out.push(c);
        }
    }
    out
}

/// A command's words (no quoting is used in the examples) and the exit code its comment names.
fn split(cmd: &str) -> (Vec<String>, i32) {
    let (code, comment) = match cmd.split_once(" #") {
        Some((c, comment)) => (c, comment.trim()),
        None => (cmd, ""),
    };
    let exit = comment
        .strip_prefix("exit ")
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    (code.split_whitespace().map(str::to_owned).collect(), exit)
}

fn kraftwerk(dir: &Path, args: &[String]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kraftwerk"))
        .args(args)
        .current_dir(dir)
        .env("KRAFTWERK_PARTS_DIR", "/nonexistent-kraftwerk-parts")
        .env("KRAFTWERK_PRICES", "/nonexistent-kraftwerk-prices.ron")
        .output()
        .expect("run kraftwerk");
    (
        out.status.code().unwrap_or(-1),
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)),
    )
}

/// A scratch folder for one page, with the repository's `catalog/` and `tests/` linked in; for
/// README.md none: its quick start is for a user who has only the binary (issue 39), so its
/// commands must run without the repository's files.
fn scratch(page: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kw-docs-{}-{}", std::process::id(), page.replace(['/', '.'], "-")));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch");
    if page == "README.md" {
        return dir;
    }
    for d in ["catalog", "tests"] {
        #[cfg(unix)]
        std::os::unix::fs::symlink(manifest_dir().join(d), dir.join(d)).expect("link");
    }
    dir
}

#[test]
fn every_command_and_build_example_in_the_readme_and_docs_runs() {
    let catalog = kraftwerk::catalog::builtin().expect("catalog");
    let mut ran = 0;
    let mut failures: Vec<String> = Vec::new();
    for page in pages() {
        let bs = blocks(&page);
        if bs.is_empty() {
            continue;
        }
        let dir = scratch(&bs[0].page);
        for b in &bs {
            let at = format!("{}:{} (```{} {})", b.page, b.line, b.lang, b.attrs.join(" "));
            let attr = |k: &str| b.attrs.iter().any(|a| a == k || a.starts_with(&format!("{k}=")));
            match b.lang.as_str() {
                "sh" if attr("setup") => {
                    for cmd in commands(&b.text) {
                        for w in cmd.split_whitespace() {
                            if (w.starts_with("scripts/") || w.starts_with("xtask/"))
                                && !manifest_dir().join(w).exists()
                            {
                                failures.push(format!("{at}: `{w}` does not exist"));
                            }
                        }
                    }
                }
                "sh" => {
                    let parse_only = attr("needs");
                    for cmd in commands(&b.text) {
                        let (args, exit) = split(&cmd);
                        if args.first().map(String::as_str) != Some("kraftwerk") {
                            failures.push(format!("{at}: `{cmd}` is not a kraftwerk command: mark the block `setup`"));
                            continue;
                        }
                        let args = &args[1..];
                        if parse_only {
                            match args.first() {
                                Some(f) if f.ends_with(".rig.ron") && !dir.join(f).exists() => {
                                    failures.push(format!("{at}: `{f}` does not exist"));
                                }
                                Some(f) if f.ends_with(".rig.ron") => {}
                                Some(sub) => {
                                    let (code, help) = kraftwerk(&dir, &[sub.clone(), "--help".to_owned()]);
                                    if code != 0 {
                                        failures.push(format!("{at}: `kraftwerk {sub}` is no command"));
                                    }
                                    for flag in args.iter().filter(|a| a.starts_with("--")) {
                                        let flag = flag.split('=').next().unwrap_or(flag);
                                        if !help.contains(flag) {
                                            failures.push(format!("{at}: `kraftwerk {sub}` takes no `{flag}`"));
                                        }
                                    }
                                }
                                None => {}
                            }
                            continue;
                        }
                        let (code, out) = kraftwerk(&dir, args);
                        ran += 1;
                        if code != exit {
                            failures.push(format!("{at}: `{cmd}` exited {code}, the page says {exit}:\n{out}"));
                        }
                    }
                }
                "ron" if attr("build") => {
                    match kraftwerk::rig::load_str(&at, &b.text, Some(&catalog)) {
                        Ok(_) => ran += 1,
                        Err(e) => failures.push(format!("{at}: {e}")),
                    }
                    if let Some(f) = b.attrs.iter().find_map(|a| a.strip_prefix("file=")) {
                        std::fs::write(dir.join(f), &b.text).expect("write example");
                    }
                }
                "ron" if attr("prices") => {
                    let read = kraftwerk::catalog::prices::read_prices_str(&at, &b.text);
                    if !read.errors.is_empty() {
                        failures.push(format!("{at}: {:?}", read.errors));
                    }
                    ran += 1;
                }
                "ron" if attr("excerpt") => {
                    if !b.text.contains("...") {
                        failures.push(format!("{at}: an excerpt shows what it leaves out with `...`"));
                    }
                }
                "json" if attr("shape") => {}
                "text" if attr("output") => {}
                _ => failures
                    .push(format!("{at}: a fenced block must say what it is (see tests/all/readme_examples.rs)")),
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(failures.is_empty(), "{} of the examples fail:\n{}", failures.len(), failures.join("\n\n"));
    assert!(ran >= 8, "the pages' examples ran ({ran})");
}

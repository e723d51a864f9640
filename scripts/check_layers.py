#!/usr/bin/env python3
"""The layer check: fails when a crate of the workspace depends on, or uses, what its layer must not.

The layers are drawn in ARCHITECTURE.md ("The layers"). Cargo already refuses a `use` of a crate
that is not a dependency, so the crate graph in the manifests *is* the architecture; this script
holds the manifests (and what they pull in) to the diagram, so a change that breaks a layer fails
CI (`.ci/run` runs it) instead of drifting from the picture:

1. Manifests (`Cargo.toml` of the root package and of each crate under `crates/`): a crate may
   depend only on the workspace crates below it (catalog <- core <- live <- app <- kraftwerk);
   eframe/egui/egui_plot/rfd/winit only in the app (and the binary, which opens it);
   nvml-wrapper and cudarc only in live; clap and its helpers only in the binary. Every
   dependency table counts (normal, dev, build, target-specific).
2. What a crate pulls in (`cargo tree`, offline, from Cargo.lock): no forbidden crate reaches a
   library crate transitively either (a helper crate that wraps egui would pass rule 1).
   Skipped with `--no-cargo` (the self-test skips it for its planted copy).
3. Sources: `unsafe` code only in live (the workspace also sets `unsafe_code = "deny"`, with
   `allow` only at live's FFI sites); inside the core crate, its modules follow their own order
   (fmt <- workload <- rig <- estimate <- check <- compare/plan <- report), `crate::{a, b::c}` groups included.

Comments and string literals are stripped before matching, so docs that name a layer are fine.

Usage: scripts/check_layers.py [--no-cargo] [ROOT]   check the workspace (default: the repository
                                                    this script is in)
       scripts/check_layers.py --self-test          plant one violation of each kind in a copy
                                                    and check that each is reported (exit 0 only
                                                    when every planted violation is caught)
Exit 0 clean, 1 violations (each printed as file[:line]: what), 2 usage error.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib

# crate directory (relative to the root) -> (package name, workspace crates it may depend on).
CRATES = {
    "crates/catalog": ("kraftwerk-catalog", set()),
    "crates/core": ("kraftwerk-core", {"kraftwerk-catalog"}),
    "crates/live": ("kraftwerk-live", {"kraftwerk-catalog", "kraftwerk-core"}),
    "crates/app": ("kraftwerk-app", {"kraftwerk-catalog", "kraftwerk-core", "kraftwerk-live"}),
    ".": ("kraftwerk", {"kraftwerk-catalog", "kraftwerk-core", "kraftwerk-live", "kraftwerk-app"}),
}
WORKSPACE_CRATES = {name for name, _ in CRATES.values()}

# external crate (package name) -> the workspace packages that may depend on it.
EXTERNAL = {
    "eframe": {"kraftwerk-app", "kraftwerk"},
    "egui": {"kraftwerk-app", "kraftwerk"},
    "egui_plot": {"kraftwerk-app", "kraftwerk"},
    "egui_kittest": {"kraftwerk-app", "kraftwerk"},
    "rfd": {"kraftwerk-app", "kraftwerk"},
    "winit": {"kraftwerk-app", "kraftwerk"},
    "nvml-wrapper": {"kraftwerk-live", "kraftwerk-app", "kraftwerk"},
    "cudarc": {"kraftwerk-live", "kraftwerk-app", "kraftwerk"},
    "clap": {"kraftwerk"},
    "clap_complete": {"kraftwerk"},
    "clap_mangen": {"kraftwerk"},
}
UNSAFE_OK = {"kraftwerk-live"}

# Inside kraftwerk-core: module -> the core modules it may use (ARCHITECTURE.md, "The module graph").
CORE_MODULES = {
    "fmt": set(),
    "workload": {"fmt"},
    "rig": {"workload", "fmt"},
    "estimate": {"rig", "workload", "fmt"},
    "check": {"rig", "estimate", "workload", "fmt"},
    "compare": {"rig", "check", "estimate", "workload", "fmt"},
    "plan": {"rig", "check", "estimate", "workload", "fmt"},
    "report": {"rig", "check", "estimate", "workload", "fmt", "compare", "plan"},
    "lib": None,  # the crate root declares every module
}

STRING = re.compile(r'r(#+)"(?:.|\n)*?"\1|r"(?:.|\n)*?"|b?"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\\n])\'', re.M)


def strip(code: str) -> str:
    """Code with comments and literals (multi-line ones too) blanked, line numbers kept."""
    keep_lines = lambda m: re.sub(r"[^\n]", " ", m.group(0))
    out, i = [], 0
    # One pass over the text so that a `//` inside a string is not a comment and a quote inside
    # a comment does not open a string.
    token = re.compile(r'//[^\n]*|/\*(?:.|\n)*?\*/|' + STRING.pattern, re.M)
    for m in token.finditer(code):
        out.append(code[i : m.start()])
        text = m.group(0)
        out.append(keep_lines(m) if not text.startswith(('"', "r", "b", "'")) else '""' + "\n" * text.count("\n"))
        i = m.end()
    out.append(code[i:])
    return "".join(out)


def dep_names(manifest: dict):
    """(table, package name) for every dependency of every table of a parsed Cargo.toml."""
    def tables(m, prefix=""):
        for key in ("dependencies", "dev-dependencies", "build-dependencies"):
            for name, spec in (m.get(key) or {}).items():
                package = spec.get("package", name) if isinstance(spec, dict) else name
                yield prefix + key, package
    yield from tables(manifest)
    for target, m in (manifest.get("target") or {}).items():
        yield from tables(m, f"target.{target}.")


def check_manifests(root: str) -> list:
    problems = []
    for rel, (name, allowed) in CRATES.items():
        path = os.path.join(root, rel, "Cargo.toml")
        try:
            with open(path, "rb") as fh:
                manifest = tomllib.load(fh)
        except (OSError, tomllib.TOMLDecodeError) as e:
            problems.append(f"{os.path.join(rel, 'Cargo.toml')}: cannot read: {e}")
            continue
        where = os.path.normpath(os.path.join(rel, "Cargo.toml"))
        for table, package in dep_names(manifest):
            if package in WORKSPACE_CRATES and package not in allowed:
                problems.append(f"{where}: [{table}] `{name}` depends on `{package}`, a layer above or beside it")
            ok = EXTERNAL.get(package)
            if ok is not None and name not in ok:
                problems.append(f"{where}: [{table}] `{name}` depends on `{package}`, allowed only in {', '.join(sorted(ok))}")
    return problems


def check_tree_output(name: str, tree: str) -> list:
    """Forbidden crates in `cargo tree -p NAME --prefix none -f {p}` output."""
    problems = []
    for line in tree.splitlines():
        package = line.split(" ")[0].strip()
        ok = EXTERNAL.get(package)
        if ok is not None and name not in ok:
            problems.append(f"cargo tree -p {name}: pulls in `{package}`, allowed only in {', '.join(sorted(ok))}")
    return sorted(set(problems))


def check_trees(root: str) -> list:
    problems = []
    for _, (name, _) in CRATES.items():
        if name == "kraftwerk":
            continue
        cmd = ["cargo", "tree", "--offline", "-p", name, "-e", "normal,build", "--prefix", "none", "-f", "{p}", "--all-features"]
        try:
            run = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.TimeoutExpired) as e:
            problems.append(f"{' '.join(cmd)}: could not run: {e}")
            continue
        if run.returncode != 0:
            problems.append(f"{' '.join(cmd)}: failed: {run.stderr.strip()[:300]}")
            continue
        problems += check_tree_output(name, run.stdout)
    return problems


def core_module(rel: str) -> str:
    parts = rel.split(os.sep)
    return parts[0] if len(parts) > 1 else os.path.splitext(parts[0])[0]


def used_crate_modules(code: str):
    """(line number, module) for each `crate::m` and each `m` of a `crate::{m, n::x}` group."""
    for m in re.finditer(r"\bcrate::(\{[^}]*(?:\{[^}]*\}[^}]*)*\}|[a-z_]+)", code):
        line = code.count("\n", 0, m.start()) + 1
        body = m.group(1)
        if body.startswith("{"):
            depth, word, names = 0, "", []
            for ch in body[1:-1]:
                if ch == "{":
                    depth += 1
                elif ch == "}":
                    depth -= 1
                elif ch == "," and depth == 0:
                    names.append(word)
                    word = ""
                    continue
                word += ch
            names.append(word)
            for n in names:
                first = re.match(r"\s*([a-z_]+)", n)
                if first:
                    yield line, first.group(1)
        else:
            yield line, body


def check_sources(root: str) -> list:
    problems = []
    for rel, (name, _) in CRATES.items():
        dirs = ["src"] if rel == "." else ["src", "examples", "tests", "benches"]
        for sub in dirs:
            src = os.path.join(root, rel, sub)
            if not os.path.isdir(src):
                continue
            for dirpath, _, files in os.walk(src):
                for f in sorted(files):
                    if not f.endswith(".rs"):
                        continue
                    path = os.path.join(dirpath, f)
                    shown = os.path.normpath(os.path.relpath(path, root))
                    with open(path, encoding="utf-8") as fh:
                        code = strip(fh.read())
                    if name not in UNSAFE_OK:
                        for n, line in enumerate(code.split("\n"), 1):
                            if re.search(r"\bunsafe\s*(\{|fn\b|impl\b|extern\b|trait\b)", line):
                                problems.append(f"{shown}:{n}: `unsafe` outside live")
                    for ext, ok in EXTERNAL.items():
                        ident = ext.replace("-", "_")
                        if name in ok:
                            continue
                        for n, line in enumerate(code.split("\n"), 1):
                            if re.search(rf"(?<![\w]){ident}::|\buse\s+(::)?{ident}\b|\bextern\s+crate\s+{ident}\b", line):
                                problems.append(f"{shown}:{n}: `{name}` uses `{ident}`, allowed only in {', '.join(sorted(ok))}")
                    if name == "kraftwerk-core" and sub == "src":
                        module = core_module(os.path.relpath(path, src))
                        allowed = CORE_MODULES.get(module, "unknown")
                        if allowed == "unknown":
                            problems.append(f"{shown}: core module `{module}` is not in the layer table (scripts/check_layers.py)")
                            continue
                        if allowed is None:
                            continue
                        for n, used in used_crate_modules(code):
                            if used != module and used in CORE_MODULES and used not in allowed:
                                problems.append(f"{shown}:{n}: core module `{module}` uses `crate::{used}`, which its layer must not")
    return problems


def check(root: str, cargo: bool = True) -> list:
    problems = check_manifests(root) + check_sources(root)
    if cargo:
        problems += check_trees(root)
    return problems


def self_test(root: str) -> int:
    # (file, text appended, what the report must say)
    plants = [
        ("crates/core/Cargo.toml", '\n[target.\'cfg(unix)\'.dependencies]\neframe = "0.37"\n', "depends on `eframe`"),
        ("crates/catalog/Cargo.toml", '\n[dev-dependencies]\nkraftwerk-core = { path = "../core" }\n', "a layer above or beside it"),
        ("crates/core/Cargo.toml", '\n[build-dependencies]\nnvml = { package = "nvml-wrapper", version = "0.13" }\n', "depends on `nvml-wrapper`"),
        ("crates/live/Cargo.toml", '\n[dev-dependencies]\nclap = "4"\n', "depends on `clap`"),
        ("crates/core/src/rig/_planted.rs", "fn f() { unsafe { } }\n", "`unsafe` outside live"),
        ("crates/catalog/src/_planted.rs", "fn f() { let _ = ::egui::Color32::RED; }\n", "uses `egui`"),
        ("crates/app/src/_planted.rs", "use clap::Parser;\n", "uses `clap`"),
        ("crates/core/src/estimate/_planted.rs", "use crate::{\n    rig::Build,\n    plan::Goal,\n};\n", "uses `crate::plan`"),
        ("crates/core/src/rig/_planted.rs", 'const S: &str = r#"\n"#; use crate::check::Report;\n', "uses `crate::check`"),
        ("crates/core/src/workload.rs", "\nuse crate::rig::Build;\n", "core module `workload` uses `crate::rig`"),
        ("crates/core/src/fmt.rs", "\nuse crate::workload::Precision;\n", "core module `fmt` uses `crate::workload`"),
        ("crates/core/src/plan/_planted.rs", "use crate::report::prices::build_prices;\n", "core module `plan` uses `crate::report`"),
    ]
    # Not violations: names in comments and (multi-line) strings.
    harmless = (
        "crates/core/src/rig/_harmless.rs",
        '// egui:: and crate::plan in a comment\nconst S: &str = "unsafe { crate::plan }";\nconst T: &str = r#"\nuse crate::check;\n"#;\n',
    )
    fake_tree = "kraftwerk-core v0.1.0\nkraftwerk-catalog v0.1.0\nwrapper v1.0.0\negui v0.33.0\nserde v1.0.0\n"
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "ws")
        skip_top = {"target", ".git", "catalog", "assets", "docs", "xtask"}
        ignore = lambda d, names: [n for n in names if os.path.abspath(d) == os.path.abspath(root) and n in skip_top]
        shutil.copytree(root, copy, ignore=ignore)
        base = check(copy, cargo=False)
        if base:
            print("self-test: the tree is not clean to start with:\n  " + "\n  ".join(base))
            return 1
        path = os.path.join(copy, harmless[0])
        with open(path, "w") as fh:
            fh.write(harmless[1])
        if check(copy, cargo=False):
            print("self-test FAILED: comments or strings were reported: " + "; ".join(check(copy, cargo=False)))
            failed += 1
        os.remove(path)
        for rel, text, expect in plants:
            path = os.path.join(copy, rel)
            before = open(path).read() if os.path.exists(path) else None
            with open(path, "a") as fh:
                fh.write(text)
            found = check(copy, cargo=False)
            hit = [p for p in found if expect in p]
            print(f"self-test: planted in {rel!r}: {'caught: ' + hit[0] if hit else 'NOT CAUGHT'}")
            failed += 0 if hit else 1
            if before is None:
                os.remove(path)
            else:
                with open(path, "w") as fh:
                    fh.write(before)
        hit = check_tree_output("kraftwerk-core", fake_tree)
        print(f"self-test: egui in core's cargo tree: {'caught: ' + hit[0] if hit else 'NOT CAUGHT'}")
        failed += 0 if hit else 1
    total = len(plants) + 1
    print(f"self-test: {total - failed} of {total} planted violations caught")
    return 1 if failed else 0


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    default_root = os.path.dirname(here)
    args = sys.argv[1:]
    if args == ["--self-test"]:
        return self_test(default_root)
    cargo = True
    if args and args[0] == "--no-cargo":
        cargo, args = False, args[1:]
    if len(args) > 1 or (args and args[0].startswith("-")):
        print(__doc__)
        return 2
    root = args[0] if args else default_root
    problems = check(root, cargo=cargo)
    for p in problems:
        print(p)
    if problems:
        print(f"layer check: {len(problems)} violation(s) (ARCHITECTURE.md, 'The layers')")
        return 1
    print("layer check: clean" + ("" if cargo else " (cargo tree skipped)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

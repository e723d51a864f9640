#!/usr/bin/env python3
"""The layer check: fails when a module of the `kraftwerk` crate uses what its layer must not.

The layers are drawn in ARCHITECTURE.md ("The layers"). This script holds them in code, so a
change that breaks them fails CI (`.ci/run` runs it) instead of drifting from the diagram:

- crate-internal imports (`crate::MODULE`) follow the module table below;
- eframe/egui/egui_plot/rfd/winit only in `ui`; nvml-wrapper and cudarc only in `live`;
  clap only in `cli` and the binary (`main.rs`);
- `unsafe` code only in `live` (the crate denies it elsewhere too: `unsafe_code = "deny"`,
  with `allow` only there).

Comments and string literals are stripped before matching, so docs that name a layer are fine.

Usage: scripts/check_layers.py [SRC_DIR]      check the tree (default: src next to this script)
       scripts/check_layers.py --self-test    plant one violation of each kind in a copy of the
                                              tree and check that each is reported (exit 0 only
                                              when every planted violation is caught).
Exit 0 clean, 1 violations (each printed as file:line: what), 2 usage error.
"""
import os
import re
import shutil
import sys
import tempfile

# module -> the crate modules it may use (ARCHITECTURE.md, "The module graph").
ALLOWED = {
    "catalog": set(),
    "build": {"catalog"},
    "estimate": {"build", "catalog"},
    "check": {"build", "catalog", "estimate"},
    "live": {"build", "catalog", "estimate"},
    "report": {"check", "estimate"},
    "compare": {"build", "catalog", "check", "estimate"},
    "plan": {"build", "catalog", "check", "estimate"},
    "cli": {"build", "catalog", "check", "estimate", "live", "report", "compare", "plan"},
    "ui": {"build", "catalog", "check", "estimate", "live", "report", "compare", "plan"},
    "lib": None,  # the crate root declares every module
    "main": None,  # the binary uses the library by its name, not `crate::`
}

# external crate -> modules that may name it.
EXTERNAL = {
    "eframe": {"ui"},
    "egui": {"ui"},
    "egui_plot": {"ui"},
    "rfd": {"ui"},
    "winit": {"ui"},
    "nvml_wrapper": {"live"},
    "cudarc": {"live"},
    "clap": {"cli", "main"},
    "clap_complete": {"cli", "main"},
    "clap_mangen": {"cli", "main"},
}
UNSAFE_OK = {"live"}

STRING = re.compile(r'r#+"(?:.|\n)*?"#+|r"(?:.|\n)*?"|b?"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])\'', re.M)
LINE_COMMENT = re.compile(r"//[^\n]*")
BLOCK_COMMENT = re.compile(r"/\*(?:.|\n)*?\*/", re.M)


def strip(code: str) -> str:
    """Code with comments and literals blanked, line numbers kept."""
    keep_lines = lambda m: re.sub(r"[^\n]", " ", m.group(0))
    code = BLOCK_COMMENT.sub(keep_lines, code)
    out = []
    for line in code.split("\n"):
        # Strings first (a URL's // inside a string is not a comment), then comments.
        line = STRING.sub(lambda m: '""', line)
        out.append(LINE_COMMENT.sub("", line))
    return "\n".join(out)


def module_of(rel: str) -> str:
    parts = rel.split(os.sep)
    return parts[0] if len(parts) > 1 else os.path.splitext(parts[0])[0]


def check(src: str) -> list:
    problems = []
    for root, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith(".rs"):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, src)
            module = module_of(rel)
            allowed = ALLOWED.get(module, "unknown")
            with open(path, encoding="utf-8") as fh:
                code = strip(fh.read())
            # `#[cfg(test)] mod tests` blocks are exempt from nothing: tests follow the layers too.
            for n, line in enumerate(code.split("\n"), 1):
                where = f"{os.path.join(os.path.basename(src), rel)}:{n}"
                if allowed == "unknown":
                    problems.append(f"{where}: module `{module}` is not in the layer table (scripts/check_layers.py)")
                    allowed = None
                if allowed is not None:
                    for m in re.finditer(r"\bcrate::([a-z_]+)", line):
                        used = m.group(1)
                        if used != module and used in ALLOWED and used not in allowed:
                            problems.append(f"{where}: `{module}` uses `crate::{used}`, which its layer must not")
                for ext, ok in EXTERNAL.items():
                    if module not in ok and re.search(rf"(?<![\w:]){ext}::|\buse {ext}\b|\bextern crate {ext}\b", line):
                        problems.append(f"{where}: `{module}` uses `{ext}`, allowed only in {', '.join(sorted(ok))}")
                if module not in UNSAFE_OK and re.search(r"\bunsafe\s*(\{|fn\b|impl\b|extern\b|trait\b)", line):
                    problems.append(f"{where}: `unsafe` outside live")
    return problems


def self_test(src: str) -> int:
    plants = [
        ("catalog/_planted.rs", "use crate::check::Report;\n", "uses `crate::check`"),
        ("estimate/_planted.rs", "fn f() { let _ = egui::Color32::RED; }\n", "uses `egui`"),
        ("check/_planted.rs", "use nvml_wrapper::Nvml;\n", "uses `nvml_wrapper`"),
        ("report/_planted.rs", "#[derive(clap::Args)] struct A;\n", "uses `clap`"),
        ("build/_planted.rs", "fn f() { unsafe { } }\n", "`unsafe` outside live"),
        ("ui/_planted.rs", "use cudarc::driver;\n", "uses `cudarc`"),
    ]
    # Not violations: names in comments and strings.
    harmless = ("build/_harmless.rs", '// egui:: and crate::ui in a comment\nconst S: &str = "unsafe { crate::ui }";\n')
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "src")
        shutil.copytree(src, copy)
        base = check(copy)
        if base:
            print("self-test: the tree is not clean to start with:\n  " + "\n  ".join(base))
            return 1
        path = os.path.join(copy, harmless[0])
        with open(path, "w") as fh:
            fh.write(harmless[1])
        if check(copy):
            print("self-test FAILED: comments or strings were reported: " + "; ".join(check(copy)))
            failed += 1
        os.remove(path)
        for rel, code, expect in plants:
            path = os.path.join(copy, rel)
            with open(path, "w") as fh:
                fh.write(code)
            found = check(copy)
            hit = [p for p in found if "_planted.rs" in p and expect in p]
            print(f"self-test: planted {rel!r}: {'caught: ' + hit[0] if hit else 'NOT CAUGHT'}")
            failed += 0 if hit else 1
            os.remove(path)
    print(f"self-test: {len(plants) - failed} of {len(plants)} planted violations caught")
    return 1 if failed else 0


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    default_src = os.path.join(os.path.dirname(here), "src")
    args = sys.argv[1:]
    if args == ["--self-test"]:
        return self_test(default_src)
    if len(args) > 1 or (args and args[0].startswith("-")):
        print(__doc__)
        return 2
    src = args[0] if args else default_src
    problems = check(src)
    for p in problems:
        print(p)
    if problems:
        print(f"layer check: {len(problems)} violation(s) (ARCHITECTURE.md, 'The layers')")
        return 1
    print("layer check: clean")
    return 0


if __name__ == "__main__":
    sys.exit(main())

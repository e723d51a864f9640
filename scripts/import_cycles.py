#!/usr/bin/env python3
"""Finds import cycles between source files of each workspace crate (issue #24, item 3).

A file A *imports* file B when A's code (comments and strings stripped, `#[cfg(test)] mod tests`
blocks included) names a path that resolves into B: `crate::x::y`, `super::y`, `self::y` (from a
`mod.rs`/`lib.rs`), or a child module declared by `mod y;`... Only `use` paths and qualified
paths are followed, and a path resolves to the deepest module file that exists, so
`crate::check::pcie::rule` is an import of `check/pcie.rs`. A parent declaring its child
(`mod pcie;`) and re-exporting it (`pub use pcie::X`) is not counted as the parent importing the
child: that is how Rust spells the module tree, and the child naming its parent's items is the
import that matters. Cycles are the strongly connected components with more than one file.

Usage: scripts/import_cycles.py [ROOT]    exit 0 no cycle, 1 cycles (printed), 2 usage error.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_layers import strip  # noqa: E402

CRATE_DIRS = ["crates/catalog/src", "crates/core/src", "crates/live/src", "crates/app/src", "src"]


def module_files(src):
    """module path (tuple) -> file, for every .rs file under src."""
    out = {}
    for dirpath, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), src)
            parts = rel[:-3].split(os.sep)
            if parts[-1] in ("mod", "lib", "main"):
                parts = parts[:-1]
            out[tuple(parts)] = os.path.join(dirpath, f)
    return out


def module_of(path, src):
    rel = os.path.relpath(path, src)
    parts = rel[:-3].split(os.sep)
    is_dir_module = parts[-1] in ("mod", "lib", "main")
    if is_dir_module:
        parts = parts[:-1]
    return tuple(parts), is_dir_module


def resolve(mods, path):
    """The file of the deepest module prefix of `path` that exists, or None."""
    for n in range(len(path), -1, -1):
        f = mods.get(tuple(path[:n]))
        if f is not None:
            return f, n
    return None, 0


def edges(src):
    mods = module_files(src)
    out = {f: set() for f in mods.values()}
    for me, path in mods.items():
        code = strip(open(path, encoding="utf-8").read())
        # expand `use a::{b, c::d}` groups into a::b, a::c::d (one level of nesting is enough here)
        expanded = []
        for m in re.finditer(r"((?:crate|super|self)(?:::\w+)*)::\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}", code):
            for item in re.split(r",(?![^{]*\})", m.group(2)):
                item = item.strip()
                head = re.match(r"(\w+(?:::\w+)*)", item)
                if head:
                    expanded.append(m.group(1) + "::" + head.group(1))
        expanded += re.findall(r"\b((?:crate|super|self)(?:::\w+)+)", code)
        # glob imports name the module itself: `use super::*;`
        expanded += re.findall(r"\b((?:crate|super|self)(?:::\w+)*)::\*", code)
        _, is_dir = module_of(path, src)
        for p in expanded:
            segs = p.split("::")
            if segs[0] == "crate":
                target = segs[1:]
            else:
                rest = segs
                # walk super:: chains
                cur = list(me)
                i = 0
                while i < len(rest) and rest[i] in ("self", "super"):
                    if rest[i] == "super":
                        cur = cur[:-1]
                    i += 1
                # in a non-dir file, `self::` is the file's own module and `super::` its parent;
                # in a dir module (mod.rs), `self::` is the dir and `super::` the dir's parent
                target = cur + rest[i:]
            f, depth = resolve(mods, target)
            if f is None or f == path:
                continue
            # the parent naming its own child (mod decl / re-export) is the module tree, not an import
            tmod = module_of(f, src)[0]
            if len(tmod) == len(me) + 1 and tmod[: len(me)] == me:
                continue
            out[path].add(f)
    return out


def sccs(graph):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def main():
    args = sys.argv[1:]
    if len(args) > 1 or (args and args[0].startswith("-")):
        print(__doc__)
        return 2
    root = args[0] if args else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    cycles = []
    for d in CRATE_DIRS:
        src = os.path.join(root, d)
        if os.path.isdir(src):
            g = edges(src)
            for comp in sccs(g):
                cycles.append((d, comp, g))
    for d, comp, g in cycles:
        names = [os.path.relpath(f, os.path.join(root, d)) for f in comp]
        print(f"cycle in {d}: {len(comp)} files: {', '.join(names)}")
        for f in comp:
            inside = sorted(os.path.relpath(t, os.path.join(root, d)) for t in g[f] if t in comp)
            print(f"    {os.path.relpath(f, os.path.join(root, d))} -> {', '.join(inside)}")
    print(f"import cycles: {len(cycles)}")
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main())

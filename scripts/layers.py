#!/usr/bin/env python3
"""Checks mcp-runtime's folders against the layer table in ARCHITECTURE.md.

The table ("The runtime in layers") lists the folders of `mcp-runtime/src/` bottom to top;
its last column names, in backticks, the folders each may import (`the above` = every
folder listed before it). This script reads every `crate::`/`super::` path in the code
(comments and doc links left out), resolves it to the top-level folder it names, and fails
on any import the table does not allow, on a path through the crate root's re-exports
(`crate::McpError`: name the layer instead), and on a folder the table does not list. So
the table stays true: change the code or the table, in the same commit.

    python3 scripts/layers.py            # exits 0 when every import is allowed
"""

import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SRC = os.path.join(ROOT, "mcp-runtime", "src")
DOC = os.path.join(ROOT, "ARCHITECTURE.md")


def read_table():
    """[(folder, allowed set)] in table order, bottom layer first."""
    text = open(DOC, encoding="utf-8").read()
    start = text.index("## The runtime in layers")
    rows = []
    for line in text[start:].splitlines()[1:]:
        if line.startswith("## "):
            break
        m = re.match(r"\|\s*`([a-z_]+)/`\s*\|.*\|([^|]*)\|\s*$", line)
        if not m:
            continue
        folder, imports = m.group(1), m.group(2)
        allowed = set(re.findall(r"`([a-z_]+)`", imports))
        if "the above" in imports:
            allowed |= {f for f, _ in rows}
        rows.append((folder, allowed))
    if not rows:
        sys.exit("layers: no layer table found in ARCHITECTURE.md")
    return rows


def code_lines(path):
    """The file's lines without comments (line comments, doc comments, block comments)."""
    src = open(path, encoding="utf-8").read()
    src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
    for n, line in enumerate(src.splitlines(), 1):
        # Strings rarely hold `crate::`; cutting at `//` is enough for this codebase.
        yield n, line.split("//", 1)[0]


def module_path(rel):
    """`transport/http/serve.rs` -> ['transport', 'http', 'serve'] (mod.rs is its folder)."""
    parts = rel[:-3].split(os.sep)
    if parts[-1] == "mod":
        parts.pop()
    return parts


PATH = re.compile(r"\b(crate|super)((?:::(?:super|[A-Za-z_][A-Za-z0-9_]*))+)")


def target(mod, kind, rest):
    """The top-level folder (or root item) a path names, or None for the file's own folder."""
    segs = rest.split("::")[1:]
    if kind == "crate":
        return segs[0] if segs else None
    # `super` from a file `a/b/c.rs` (module a::b::c) is a::b.
    base = mod[:-1]
    while segs and segs[0] == "super":
        base = base[:-1]
        segs = segs[1:]
    full = base + segs
    return full[0] if full else None


def main():
    rows = read_table()
    order = [f for f, _ in rows]
    allowed = dict(rows)
    root_modules = set(order) | {"core"}
    problems = []
    for dirpath, _, files in os.walk(SRC):
        for name in sorted(files):
            if not name.endswith(".rs"):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, SRC)
            mod = module_path(rel)
            if rel == "lib.rs":
                continue  # the crate root declares and re-exports every layer
            folder = mod[0]
            if folder not in allowed:
                problems.append(f"{rel}: folder `{folder}/` is not in ARCHITECTURE.md's layer table")
                continue
            in_tests = False
            # Deprecated code is read like any other: an old path kept public is an import.
            for n, line in code_lines(path):
                if re.match(r"\s*#\[cfg\(test\)\]", line):
                    in_tests = True  # a test module may reach anything: it is not a layer
                if in_tests:
                    continue
                for m in PATH.finditer(line):
                    t = target(mod, m.group(1), m.group(2))
                    if t is None or t == folder:
                        continue
                    if t not in root_modules:
                        problems.append(
                            f"{rel}:{n}: `{m.group(0)}` goes through the crate root; name the layer"
                        )
                    elif t != "core" and t not in allowed[folder]:
                        problems.append(
                            f"{rel}:{n}: `{folder}/` imports `{t}/`, which ARCHITECTURE.md does not allow"
                        )
    for p in problems:
        print(p)
    print(f"layers: {len(order)} folders ({' < '.join(order)}), {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""One path per public item of the `mcp` facade.

Walks the facade's module tree in rustdoc JSON (following re-exports into mcp_runtime and
mcp_core, whose JSON is built too), lists every public path to every item, and fails when an
item is reachable by two paths outside `mcp::prelude`. `#[doc(hidden)]` items (`__private`)
are not walked. Items of other crates (tokio, axum, schemars) are leaves: a re-exported crate
counts once, its contents are its own.

    python3 scripts/public_paths.py            # builds the JSON (stable rustdoc, RUSTC_BOOTSTRAP)
    python3 scripts/public_paths.py --list     # prints every path too
"""

import json
import os
import subprocess
import sys
from collections import defaultdict

# (package, crate name in JSON file)
CRATES = [
    ("mcp-framework-core", "mcp_core"),
    ("mcp-framework-runtime", "mcp_runtime"),
    ("mcp-framework", "mcp"),
]
ALLOWED_TWICE = {"prelude"}


def target_dir():
    out = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"],
        check=True, capture_output=True, text=True,
    ).stdout
    return json.loads(out)["target_directory"]


def build(docdir):
    # RUSTC_BOOTSTRAP for rustdoc alone (through a wrapper): set for cargo, it would change
    # every dependency's fingerprint and rebuild them all.
    wrapper = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rustdoc-json.sh")
    env = dict(os.environ, RUSTDOC=wrapper)
    for pkg, _ in CRATES:
        subprocess.run(
            ["cargo", "rustdoc", "-q", "-p", pkg, "--all-features", "--",
             "-Z", "unstable-options", "--output-format", "json"],
            check=True, env=env,
        )
    docs = {}
    for _, name in CRATES:
        with open(os.path.join(docdir, name + ".json"), encoding="utf-8") as f:
            docs[name] = json.load(f)
    return docs


def hidden(item):
    return "doc(hidden)" in json.dumps(item.get("attrs", [])).replace(" ", "")


class Walker:
    def __init__(self, docs):
        self.docs = docs
        # crate -> path tuple -> local id, for resolving a re-export of another crate's item.
        self.by_path = {}
        for name, doc in docs.items():
            table = {}
            for iid, summary in doc["paths"].items():
                if summary["crate_id"] == 0:
                    table.setdefault((tuple(summary["path"]), summary["kind"]), iid)
            self.by_path[name] = table
        self.reach = defaultdict(list)  # item key -> public paths

    def resolve(self, crate, iid):
        """(crate, id) of the item `iid` names in `crate`'s JSON, or a leaf key."""
        doc = self.docs[crate]
        if str(iid) in doc["index"]:
            return crate, str(iid)
        summary = doc["paths"].get(str(iid))
        if summary is None:
            return None
        ext = doc["external_crates"][str(summary["crate_id"])]["name"]
        if ext in self.docs:
            local = self.by_path[ext].get((tuple(summary["path"]), summary["kind"]))
            if local is not None and local in self.docs[ext]["index"]:
                return ext, local
        return ("leaf", "::".join(summary["path"]))

    def walk_module(self, crate, iid, path, seen):
        key = (crate, iid)
        if key in seen:
            return
        seen = seen | {key}
        module = self.docs[crate]["index"][iid]["inner"]["module"]
        for child in module["items"]:
            self.visit(crate, str(child), path, seen)

    def visit(self, crate, iid, path, seen):
        item = self.docs[crate]["index"].get(iid)
        if item is None or hidden(item):
            return
        inner = item["inner"]
        if "use" in inner:
            use = inner["use"]
            if use["id"] is None:
                return
            target = self.resolve(crate, use["id"])
            if target is None:
                return
            if target[0] == "leaf":
                self.reach[target].append("::".join(path + [use["name"]]))
                return
            tcrate, tid = target
            titem = self.docs[tcrate]["index"][tid]
            if hidden(titem):
                return
            if use["is_glob"]:
                self.walk_module(tcrate, tid, path, seen)
            elif "module" in titem["inner"]:
                self.walk_module(tcrate, tid, path + [use["name"]], seen)
            else:
                self.reach[(tcrate, tid)].append("::".join(path + [use["name"]]))
            return
        if item.get("visibility") != "public":
            return
        name = item.get("name")
        if name is None:
            return  # impl blocks and the like
        if "module" in inner:
            self.walk_module(crate, iid, path + [name], seen)
        else:
            self.reach[(crate, iid)].append("::".join(path + [name]))


def main():
    docs = build(os.path.join(target_dir(), "doc"))
    walker = Walker(docs)
    root = docs["mcp"]["root"]
    walker.walk_module("mcp", str(root), ["mcp"], frozenset())
    twice = []
    total = 0
    for key, paths in sorted(walker.reach.items(), key=lambda kv: sorted(kv[1])[0]):
        outside = sorted(p for p in set(paths) if p.split("::")[1] not in ALLOWED_TWICE)
        total += len(outside)
        if "--list" in sys.argv:
            print("  ".join(sorted(set(paths))))
        if len(outside) > 1:
            twice.append(outside)
    for paths in twice:
        print("reachable by %d paths: %s" % (len(paths), ", ".join(paths)))
    print("%d public items, %d paths outside the prelude, %d reachable twice"
          % (len(walker.reach), total, len(twice)))
    sys.exit(1 if twice else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The README's conformance table, from what the official suite's runs recorded.

`interop/conformance/run.sh` (server scenarios) and `run_client.sh` (client scenarios) write
one line per scenario run to `results-server.tsv` and `results-client.tsv` in the
conformance directory (`CONFORMANCE_DIR`, default `target/conformance`):

    side  suite  revision  scenario  outcome  checks

(`revision` empty for the stable suite, which covers the 2025 revisions; `extension` for the
extension scenarios; `outcome` `ok`, `skip` or `FAIL`; `checks` `passed/total` or `-`; the
scenario `*` is the whole suite's own total for that revision, as it scores a server).

This renders them as one row per side, suite and revision, and compares the table with
what README.md holds between `<!-- conformance:begin -->` and `<!-- conformance:end -->`:

    python3 scripts/conformance_table.py           # check (.ci/run, after both runs)
    python3 scripts/conformance_table.py --write   # put the table in README.md

The check fails when the README differs, when a result file is missing, or when any
scenario failed, so the README's numbers are the last CI run's, never typed by hand.
"""

import os
import sys
from collections import OrderedDict

BEGIN = "<!-- conformance:begin -->"
END = "<!-- conformance:end -->"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_results(directory):
    rows = []
    for side in ("server", "client"):
        path = os.path.join(directory, f"results-{side}.tsv")
        if not os.path.exists(path):
            sys.exit(f"conformance_table: {path} is missing: run interop/conformance/run.sh and run_client.sh first")
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if not line:
                    continue
                fields = line.split("\t")
                if len(fields) != 6:
                    sys.exit(f"conformance_table: {path}:{n}: expected 6 tab-separated fields: {line!r}")
                rows.append(fields)
    return rows


def revision_label(rev):
    if rev == "":
        return "2025 revisions"
    if rev == "extension":
        return "extensions"
    return rev


def render(rows):
    groups = OrderedDict()
    for side, suite, rev, scenario, outcome, checks in rows:
        g = groups.setdefault(
            (side, suite, rev), {"ok": 0, "skip": 0, "FAIL": 0, "passed": 0, "total": 0, "score": "—"}
        )
        if scenario == "*":
            # The whole suite as it scores a server (run.sh's `whole`).
            g["score"] = checks + ("" if outcome == "ok" else " (failed)")
            continue
        g[outcome] = g.get(outcome, 0) + 1
        if "/" in checks:
            passed, total = checks.split("/")
            g["passed"] += int(passed)
            g["total"] += int(total)
    lines = [
        "| side | revision | suite | scenarios passed | checks passed | the suite's score |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for (side, suite, rev), g in groups.items():
        run = g["ok"] + g["FAIL"]
        skipped = f" ({g['skip']} not applicable)" if g["skip"] else ""
        lines.append(
            f"| {side} | {revision_label(rev)} | {suite} | {g['ok']}/{run}{skipped} "
            f"| {g['passed']}/{g['total']} | {g['score']} |"
        )
    return "\n".join(lines) + "\n"


def main():
    write = "--write" in sys.argv[1:]
    directory = os.environ.get("CONFORMANCE_DIR", os.path.join(ROOT, "target", "conformance"))
    rows = read_results(directory)
    failed = [r for r in rows if r[4] == "FAIL"]
    for r in failed:
        print(f"conformance_table: {r[0]} scenario {r[3]} ({r[1]} {revision_label(r[2])}) failed")
    table = render(rows)
    readme_path = os.path.join(ROOT, "README.md")
    readme = open(readme_path, encoding="utf-8").read()
    if BEGIN not in readme or END not in readme:
        sys.exit(f"conformance_table: README.md has no {BEGIN} ... {END} block")
    head, rest = readme.split(BEGIN, 1)
    current, tail = rest.split(END, 1)
    wanted = "\n" + table
    if write:
        with open(readme_path, "w", encoding="utf-8") as f:
            f.write(head + BEGIN + wanted + END + tail)
        print("conformance_table: README.md updated")
    elif current != wanted:
        print("conformance_table: README.md's conformance table is not the last run's; run")
        print("  python3 scripts/conformance_table.py --write")
        print("README.md has:\n" + current + "the run gives:" + wanted)
        sys.exit(1)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

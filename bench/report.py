#!/usr/bin/env python3
"""Turns one bench/run.sh result folder into the side-by-side section of BENCHMARKS.md.

usage: report.py RESULT_DIR BENCHMARKS.md   (or - to print the section)

Absolute figures are medians over the rounds. Ratios are medians of the per-round ratios:
both servers of a ratio ran back to back in the same round, so a busy spell on the shared
machine moves both and cancels out.
"""
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

BEGIN = "<!-- side-by-side:begin (written by bench/run.sh) -->"
END = "<!-- side-by-side:end -->"


def load(folder):
    rows = defaultdict(dict)  # (scenario, impl) -> round -> result
    for line in (folder / "results.jsonl").read_text().splitlines():
        r = json.loads(line)
        rows[(r["scenario"], r["impl"])][r["round"]] = r["result"]
    machine = dict(
        l.split("=", 1) for l in (folder / "machine.txt").read_text().splitlines() if "=" in l
    )
    loads = [float(x) for x in (folder / "loadavg.txt").read_text().split()]
    return rows, machine, loads


class Data:
    def __init__(self, rows):
        self.rows = rows

    def ok(self, s, i):
        return {k: v for k, v in self.rows.get((s, i), {}).items() if not v.get("errors")}

    def errors(self, s, i):
        return [v.get("first_error") for v in self.rows.get((s, i), {}).values() if v.get("errors")]

    def med(self, s, i, key):
        vals = [v[key] for v in self.ok(s, i).values() if v.get(key) is not None]
        return statistics.median(vals) if vals else None

    def ratio(self, s, a, b, key="calls_per_s", sb=None):
        """Median over rounds of a/b (b may be from another scenario sb)."""
        ra, rb = self.ok(s, a), self.ok(sb or s, b)
        vals = [ra[k][key] / rb[k][key] for k in ra if k in rb and rb[k].get(key)]
        return statistics.median(vals) if vals else None

    def best(self, s, impls, key="calls_per_s"):
        meds = [(self.med(s, i, key) or 0, i) for i in impls if self.ok(s, i)]
        return max(meds)[1] if meds else None


def fmt(v, unit="", digits=0):
    if v is None:
        return "—"
    if digits == 0:
        return f"{v:,.0f}{unit}".replace(",", " ")
    return f"{v:.{digits}f}{unit}"


def x(v):
    return "—" if v is None else f"{v:.2f}×"


def verdict(ok, detail):
    if ok is None:
        return "not measured"
    return ("**met**" if ok else "**missed**") + f" ({detail})"


THROUGHPUT = [
    ("stdio-64-add", "stdio, 64 in flight, `add` (legacy)"),
    ("stdio-64-add-2026", "stdio, 64 in flight, `add` (2026 `_meta`)"),
    ("stdio-1-add", "stdio, 1 in flight, `add`"),
    ("stdio-16-echo-64k", "stdio, 16 in flight, 64 KiB `echo`"),
    ("http-32-add", "Streamable HTTP, 32 clients, `add` (legacy session)"),
    ("http-32-add-2026", "Streamable HTTP, 32 clients, `add` (2026 headers + `_meta`)"),
    ("http-1-add", "Streamable HTTP, 1 client, `add`"),
    ("http-8-echo-64k", "Streamable HTTP, 8 clients, 64 KiB `echo`"),
]


def throughput_table(d):
    out = [
        "| scenario | server | calls/s | p50 µs | p90 µs | p99 µs | server CPU µs/call | peak RSS MiB | vs floor | vs ours |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for s, title in THROUGHPUT:
        impls = sorted({i for (sc, i) in d.rows if sc == s}, key=impl_order)
        for n, i in enumerate(impls):
            errs = d.errors(s, i)
            cell = title if n == 0 else ""
            if not d.ok(s, i):
                out.append(f"| {cell} | {i} | failed: {(errs or ['?'])[0]} | | | | | | | |")
                continue
            rss = d.med(s, i, "peak_rss_kib")
            out.append(
                f"| {cell} | {i}{' ⚠' if errs else ''} | {fmt(d.med(s, i, 'calls_per_s'))} "
                f"| {fmt(d.med(s, i, 'p50_us'), digits=1)} | {fmt(d.med(s, i, 'p90_us'), digits=1)} "
                f"| {fmt(d.med(s, i, 'p99_us'), digits=1)} "
                f"| {fmt(d.med(s, i, 'server_cpu_us_per_call'), digits=1)} "
                f"| {fmt(rss / 1024 if rss else None, digits=1)} "
                f"| {x(d.ratio(s, i, 'floor'))} | {x(d.ratio(s, i, 'ours'))} |"
            )
    return out


def impl_order(i):
    order = ["ours", "ours-10-layers", "floor", "rmcp", "rmcp-pipes"]
    return order.index(i) if i in order else len(order)


def cpu(d, s, a, b, sb=None):
    """The server-CPU-per-call ratio a/b, as text (robust to a busy machine)."""
    r = d.ratio(s, a, b, "server_cpu_us_per_call", sb=sb)
    return "" if r is None else f"; CPU/call {r:.2f}× {b if sb is None else 'legacy'}'s"


def targets(d):
    rows = []
    rb = d.best("stdio-64-add", ["rmcp", "rmcp-pipes"])
    r1, r2 = d.ratio("stdio-64-add", "ours", rb) if rb else None, d.ratio("stdio-64-add", "ours", "floor")
    rows.append(("stdio, 64 in flight, `add`", "≥ 3× rmcp's best stdio mode and ≥ 0.5× the floor",
                 f"{x(r1)} {rb}, {x(r2)} floor" + cpu(d, "stdio-64-add", "ours", "floor"), both(r1, 3, r2, 0.5)))
    r = d.ratio("stdio-1-add", "ours", "floor")
    p = d.ratio("stdio-1-add", "ours", "floor", "p99_us")
    rows.append(("stdio, 1 in flight", "≥ 0.95× the floor; p99 ≤ 1.2× the floor's",
                 f"{x(r)} floor; p99 {x(p)} the floor's",
                 None if r is None or p is None else (r >= 0.95 and p <= 1.2, f"{r:.2f}× / p99 {p:.2f}×")))
    r1, r2 = d.ratio("http-32-add", "ours", "rmcp"), d.ratio("http-32-add", "ours", "floor")
    rows.append(("Streamable HTTP, 32 clients", "≥ 2.5× rmcp and ≥ 0.7× the floor",
                 f"{x(r1)} rmcp, {x(r2)} floor" + cpu(d, "http-32-add", "ours", "floor"), both(r1, 2.5, r2, 0.7)))
    a, b = d.med("http-1-add", "ours", "p50_us"), d.med("http-1-add", "floor", "p50_us")
    diffs = [d.ok("http-1-add", "ours")[k]["p50_us"] - v["p50_us"]
             for k, v in d.ok("http-1-add", "floor").items() if k in d.ok("http-1-add", "ours")]
    diff = statistics.median(diffs) if diffs else None
    rows.append(("Streamable HTTP, 1 client", "p50 within 10 µs of the floor's",
                 f"p50 {fmt(a, digits=1)} µs vs {fmt(b, digits=1)} µs: {fmt(diff, digits=1)} µs more",
                 None if diff is None else (diff <= 10, f"{diff:+.1f} µs")))
    for s, label in [("stdio-16-echo-64k", "64 KiB `echo`, stdio"), ("http-8-echo-64k", "64 KiB `echo`, HTTP")]:
        peers = [i for i in ["floor", "rmcp", "rmcp-pipes"] if d.ok(s, i)]
        bp = d.best(s, peers)
        r = d.ratio(s, "ours", bp) if bp else None
        rows.append((label, "≥ the better of the floor and rmcp", f"{x(r)} {bp}" + (cpu(d, s, "ours", bp) if bp else ""),
                     None if r is None else (r >= 1.0, f"{r:.2f}×")))
    for s, legacy, label in [("stdio-64-add-2026", "stdio-64-add", "2026 requests, stdio 64"),
                             ("http-32-add-2026", "http-32-add", "2026 requests, HTTP 32")]:
        r = d.ratio(s, "ours", "ours", sb=legacy)
        c = d.ratio(s, "ours", "ours", "server_cpu_us_per_call", sb=legacy)
        rows.append((label, "within 5% of the legacy figures", f"{x(r)} legacy" + cpu(d, s, "ours", "ours", sb=legacy),
                     cost_verdict(r, c, 0.05)))
    r = d.ratio("stdio-64-add", "ours-10-layers", "ours")
    c = d.ratio("stdio-64-add", "ours-10-layers", "ours", "server_cpu_us_per_call")
    rows.append(("10 static middleware layers", "≤ 3% below 0 layers at 64 in flight", f"{x(r)} 0 layers" + cpu(d, "stdio-64-add", "ours-10-layers", "ours"),
                 cost_verdict(r, c, 0.03)))
    rss, cold = d.med("idle-stdio", "ours", "rss_kib"), d.med("cold-start", "ours", "cold_p50_us")
    rows.append(("idle stdio server", "≤ 4 MiB RSS; cold start ≤ 2 ms median",
                 f"{fmt(rss / 1024 if rss else None, digits=2)} MiB; {fmt(cold / 1000 if cold else None, digits=2)} ms",
                 None if rss is None or cold is None else (rss <= 4096 and cold <= 2000, f"{rss / 1024:.2f} MiB, {cold / 1000:.2f} ms")))
    for prefix, label, limit in [("sessions-", "open legacy HTTP sessions", 64), ("listen-", "open `subscriptions/listen` streams", 32)]:
        s = next((sc for (sc, i) in d.rows if sc.startswith(prefix)), None)
        v = d.ok(s, "ours").get(1) if s else None
        n = s[len(prefix):] if s else "?"
        if v is None or not v.get("supported", True):
            why = "not supported by the server yet" if v else "failed: " + str((d.errors(s, "ours") or ["?"])[0]) if s else "not run"
            rows.append((f"{n} {label}", f"≤ {limit} MiB RSS", why, None))
            continue
        mib = v["rss_kib"] / 1024
        rows.append((f"{n} {label}", f"≤ {limit} MiB RSS", f"{mib:.1f} MiB", (mib <= limit, f"{mib:.1f} MiB")))
    rows.append(build_row(folder_root()))
    rows.append(rebuild_row(folder_root()))
    rows.append(release_row(folder_root()))
    out = ["| scenario | target | measured | verdict |", "| --- | --- | --- | --- |"]
    for name, target, measured, v in rows:
        out.append(f"| {name} | {target} | {measured} | {verdict(*v) if v else 'not measured'} |")
    return out


def folder_root():
    return Path(__file__).resolve().parent


def build_times(bench, name="results.jsonl"):
    """bench/build-time/results.jsonl (written by bench/build_time.sh; the release profile's
    is results-release.jsonl): impl -> [runs]."""
    path = bench / "build-time" / name
    runs = defaultdict(list)
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                runs[r["impl"]].append(r)
    return runs


def build_row(bench):
    runs = build_times(bench)
    label, target = "clean build of `examples/bookshop`", "no slower than the same server on rmcp"
    if not runs.get("ours") or not runs.get("rmcp"):
        return (label, target, "not measured (run bench/build_time.sh)", None)
    med = lambda impl, k: statistics.median(r[k] for r in runs[impl])
    full = med("ours", "full_s") / med("rmcp", "full_s")
    leaf = med("ours", "leaf_s") / med("rmcp", "leaf_s")
    measured = (f"{med('ours', 'full_s'):.0f} s vs {med('rmcp', 'full_s'):.0f} s ({full:.2f}×) clean; "
                f"{med('ours', 'leaf_s'):.1f} s vs {med('rmcp', 'leaf_s'):.1f} s ({leaf:.2f}×) without deps")
    return (label, target, measured, (full <= 1.0, f"{full:.2f}× rmcp's clean build"))


def rebuild_row(bench):
    """The debug binary and the rebuild after editing the tool's body, against rmcp."""
    runs = build_times(bench)
    label = "debug binary and incremental rebuild of `examples/bookshop`"
    target = "no larger than the same server on rmcp; the rebuild ≤ 0.8× rmcp's (issue 34)"
    have = lambda impl: [r for r in runs.get(impl, []) if "incr_s" in r]
    if not have("ours") or not have("rmcp"):
        return (label, target, "not measured (run bench/build_time.sh)", None)
    med = lambda impl, k: statistics.median(r[k] for r in have(impl))
    size = med("ours", "bin_bytes") / med("rmcp", "bin_bytes")
    incr = med("ours", "incr_s") / med("rmcp", "incr_s")
    measured = (f"{med('ours', 'bin_bytes') / 1e6:.1f} MB vs {med('rmcp', 'bin_bytes') / 1e6:.1f} MB "
                f"({size:.2f}×); rebuild {med('ours', 'incr_s'):.1f} s vs {med('rmcp', 'incr_s'):.1f} s "
                f"({incr:.2f}×)")
    return (label, target, measured, (size <= 1.0 and incr <= 0.8, f"{size:.2f}× size, {incr:.2f}× rebuild"))


def release_row(bench):
    """The release binary of the bookshop against rmcp's (bench/build_time.sh --profile release)."""
    runs = build_times(bench, "results-release.jsonl")
    label, target = "release binary of `examples/bookshop`", "no larger than the same server on rmcp"
    if not runs.get("ours") or not runs.get("rmcp"):
        return (label, target, "not measured (run bench/build_time.sh --profile release)", None)
    med = lambda impl, k: statistics.median(r[k] for r in runs[impl])
    size = med("ours", "bin_bytes") / med("rmcp", "bin_bytes")
    full = med("ours", "full_s") / med("rmcp", "full_s")
    measured = (f"{med('ours', 'bin_bytes') / 1e6:.1f} MB vs {med('rmcp', 'bin_bytes') / 1e6:.1f} MB "
                f"({size:.2f}×); clean release build {med('ours', 'full_s'):.0f} s vs "
                f"{med('rmcp', 'full_s'):.0f} s ({full:.2f}×)")
    return (label, target, measured, (size <= 1.0, f"{size:.2f}× size"))


def cost_verdict(r, c, slack):
    """Met when calls/s is at most `slack` lower AND the CPU per call at most `slack` higher:
    on a busy machine calls/s alone can flatter (or wrong) a variant by chance."""
    if r is None:
        return None
    ok = r >= 1 - slack and (c is None or c <= 1 + slack)
    return (ok, f"calls/s {(r - 1) * 100:+.1f}%" + ("" if c is None else f", CPU/call {(c - 1) * 100:+.1f}%"))


def both(r1, t1, r2, t2):
    if r1 is None or r2 is None:
        return None
    return (r1 >= t1 and r2 >= t2, f"{r1:.2f}× ≥ {t1}, {r2:.2f}× ≥ {t2}")


def memory_table(d):
    out = ["| scenario | server | RSS MiB | notes |", "| --- | --- | ---: | --- |"]
    for impl in ["ours", "floor", "rmcp"]:
        rss, cold = d.med("idle-stdio", impl, "rss_kib"), d.med("cold-start", impl, "cold_p50_us")
        cold90 = d.med("cold-start", impl, "cold_p90_us")
        out.append(f"| idle stdio (after `initialize` + 1 call) | {impl} | {fmt(rss / 1024 if rss else None, digits=2)} "
                   f"| cold start p50 {fmt(cold / 1000 if cold else None, digits=2)} ms, p90 {fmt(cold90 / 1000 if cold90 else None, digits=2)} ms |")
    for (s, impl) in sorted(k for k in d.rows if k[0].startswith(("sessions-", "listen-"))):
        v = d.rows[(s, impl)].get(1, {})
        if v.get("errors"):
            out.append(f"| {s} | {impl} | — | failed: {v.get('first_error')} |")
        elif not v.get("supported", True):
            out.append(f"| {s} | {impl} | — | not supported (HTTP {v.get('status')}: `{v.get('answer', '')[:80]}`) |")
        else:
            per = v.get("bytes_per_session") or v.get("bytes_per_stream")
            out.append(f"| {s} | {impl} | {v['rss_kib'] / 1024:.1f} | from {v['rss_before_kib'] / 1024:.1f} MiB: "
                       f"≈ {per / 1024:.1f} KiB each |")
    return out


def section(folder):
    rows, m, loads = load(folder)
    d = Data(rows)
    lines = [
        BEGIN,
        "## Side by side: ours, the floor, rmcp (`bench/run.sh`)",
        "",
        f"Run of {m.get('date', '?')}: {m.get('rounds')} rounds of {m.get('duration')} s per run "
        f"(after {m.get('warmup')} s of warm-up), every implementation once per round, interleaved. "
        f"Load average during the run (other builds on the machine): "
        f"{min(loads):.1f} to {max(loads):.1f}.",
        "",
        "### Targets (issue #8)",
        "",
        *targets(d),
        "",
        "### Throughput and latency",
        "",
        "Medians over the rounds. *vs floor* / *vs ours* are medians of the per-round ratios of "
        "calls/s. *server CPU µs/call* is the server's user+system time over the measured window "
        "divided by its calls (10 ms tick resolution): it is less sensitive than calls/s to what "
        "else runs on the machine.",
        "",
        *throughput_table(d),
        "",
        "### Memory and start-up",
        "",
        *memory_table(d),
        "",
        "### Machine",
        "",
        f"- `nproc`: {m.get('nproc')}; CPU: `{m.get('cpu')}`; kernel: `{m.get('kernel')}`",
        f"- `{m.get('rustc')}`; rmcp {m.get('rmcp')} from crates.io; everything built `--release`",
        "",
        "### Method",
        "",
        "- The load generator (`bench/loadgen`) speaks raw JSON-RPC and contains no MCP SDK. It "
        "checks every answer (the sum, or the echoed text, for the id it sent); a run with a wrong "
        "answer is reported as failed.",
        "- stdio: the server is a child process; one thread writes (at most W requests in flight, "
        "one flush per batch), one reads; with W = 1 a single thread writes then reads. Legacy runs "
        "`initialize` first; 2026 runs send the `_meta` envelope on every call. Peak RSS is the "
        "child's `VmHWM`.",
        "- HTTP: C clients, each on its own keep-alive HTTP/1.1 connection (hyper's low-level "
        "client, one tokio thread), one request at a time. Legacy clients `initialize` and send "
        "`Mcp-Session-Id` + `MCP-Protocol-Version`; 2026 clients send `MCP-Protocol-Version`, "
        "`Mcp-Method`, `Mcp-Name` and the `_meta` envelope. Answers may be JSON or SSE. Each run "
        "starts a fresh server.",
        "- The floor (`bench/floor-stdio`, `bench/floor-http`): serde_json on tokio (non-blocking "
        "pipes) or bare hyper, answering the same calls with no framework and no checks.",
        "- rmcp (`bench/rmcp-server`): the same tools with `#[tool_router]`/`#[tool_handler]`; "
        "`rmcp` = `transport::stdio()`, `rmcp-pipes` = `transport::stdio_pipes()`; HTTP = "
        "`StreamableHttpService` with its defaults (legacy sessions on) under axum.",
        "- Ours: `tests/examples/bench_server.rs` (`#[mcp::tool]`, `#[mcp::server]`, default options; "
        "`--layers 10` adds ten pass-through `#[mcp::middleware]` layers). The stdio rows run it "
        "built with `mcp`'s default features (a stdio server has no HTTP stack), the HTTP rows "
        "built with `--features http`.",
        "- Cold start: spawn to the `initialize` answer. Idle: `VmRSS` 300 ms after "
        "`initialize` and one call. Sessions: N legacy `initialize`s (16 connections), then the "
        "server's `VmRSS`; listen: N `subscriptions/listen` streams held open, one connection each.",
        "",
        "### Reproduce",
        "",
        "```sh",
        "bench/run.sh            # about 10 minutes; rewrites this section",
        "bench/run.sh --quick    # 2 short rounds, for a smoke test",
        "# one scenario by hand:",
        "cargo build --release -p mcp-framework-tests --example bench_server",
        "bench/target/release/loadgen stdio --window 64 -- target/release/examples/bench_server --stdio",
        "```",
        END,
    ]
    return "\n".join(lines) + "\n"


def main():
    folder, dest = Path(sys.argv[1]), sys.argv[2]
    text = section(folder)
    if dest == "-":
        print(text)
        return
    path = Path(dest)
    old = path.read_text() if path.exists() else "# Benchmarks\n\n"
    if BEGIN in old and END in old:
        head, rest = old.split(BEGIN, 1)
        new = head + text + rest.split(END, 1)[1].lstrip("\n")
    else:
        new = old.rstrip("\n") + "\n\n" + text
    path.write_text(new)


if __name__ == "__main__":
    main()
